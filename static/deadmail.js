// deadmail's own script (the Content-Security-Policy allows scripts from this site only, never inline). Pages work
// without it: it only adds conveniences.
//
// Copy buttons (templates/organiser/_copy.html): a read-only field holding a link, and a button, hidden in the page,
// that this script shows; a click copies the link and says "Copied" in the field's live region.
//
// Time zones (templates/_zones.html): a select marked data-zone-guess holds no zone the reader chose yet; this script
// selects the browser's own zone (adding it when the list lacks it: the server accepts any zone it knows) and shows
// the hint that says so.
//
// Notifications (templates/_notify.html): where the browser takes Web Push, the "Notify me on this device" control is
// shown; a click asks for permission, subscribes through the service worker (/sw.js) with the server's key, and posts
// the subscription as JSON to the control's address; the answer's message is said in the control's live region. Any
// page with a manifest registers the service worker (the table can then be installed). A page may load this script twice (a zone select and copy buttons): it runs once.
(function () {
  "use strict";
  if (window.deadmailStarted) return;
  window.deadmailStarted = true;

  function say(button, text) {
    var status = button.closest(".copy-field").querySelector(".copy-status");
    if (!status) return;
    status.textContent = "";
    // a new text each time, so a screen reader announces a second copy too
    window.setTimeout(function () { status.textContent = text; }, 50);
  }

  function fallback(field) {
    // no clipboard API (a page served over plain http from another machine): select it, try the old command
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch (e) {
      return false;
    }
  }

  function copy(button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    var done = function () { say(button, button.getAttribute("data-copied")); };
    var failed = function () {
      if (fallback(field)) done();
      else say(button, button.getAttribute("data-failed"));
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, failed);
    } else {
      failed();
    }
  }

  function guessZone(select) {
    var zone = "";
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (e) {
      return;
    }
    if (!/^[A-Za-z0-9_+\-]+(\/[A-Za-z0-9_+\-]+)*$/.test(zone) || zone === select.value) return;
    var found = Array.prototype.some.call(select.options, function (option) { return option.value === zone; });
    if (!found) {
      var option = document.createElement("option");
      option.value = zone;
      option.textContent = zone;
      select.insertBefore(option, select.firstChild);
    }
    select.value = zone;
    var hint = document.getElementById(select.getAttribute("data-zone-guess"));
    if (hint) hint.hidden = false;
  }

  function keyBytes(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  function pushable() {
    return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;
  }

  function registration() {
    return navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  function subscribe(control) {
    var status = control.querySelector(".notify-status");
    var button = control.querySelector(".notify-button");
    var field = control.querySelector(".device-name");
    var tell = function (text) { status.textContent = text; };
    button.disabled = true;
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw new Error("denied");
      return registration();
    }).then(function (ready) {
      return ready.pushManager.getSubscription().then(function (old) {
        return old || ready.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(control.getAttribute("data-key"))
        });
      });
    }).then(function (subscription) {
      return fetch(control.getAttribute("data-subscribe"), {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": control.getAttribute("data-csrf") },
        body: JSON.stringify({ subscription: subscription.toJSON(), name: field ? field.value : "" })
      });
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.error || "");
        tell(body.message || control.getAttribute("data-done"));
        if (control.getAttribute("data-reload")) window.setTimeout(function () { window.location.reload(); }, 800);
      });
    }).catch(function (error) {
      var message = error && error.message;
      if (message === "denied") tell(control.getAttribute("data-denied"));
      else tell(message || control.getAttribute("data-failed"));
    }).then(function () { button.disabled = false; });
  }

  function startNotifications() {
    var controls = document.querySelectorAll(".notify-control[data-subscribe]:not([data-started])");
    Array.prototype.forEach.call(controls, function (control) {
      control.setAttribute("data-started", "1");
      control.hidden = false;
      var button = control.querySelector(".notify-button");
      if (!pushable()) {
        button.hidden = true;
        control.querySelector(".notify-status").textContent = control.getAttribute("data-unsupported");
        return;
      }
      button.addEventListener("click", function () { subscribe(control); });
    });
    if ("serviceWorker" in navigator && document.querySelector("link[rel=manifest]")) {
      registration().catch(function () { /* the page works without it */ });
    }
  }

  // The live part of a seat page (templates/seat_live.html) listens to the live server's stream of its game's changes
  // (server/run/live.py): when the game's stamp is no longer the one the part was drawn at, htmx fetches it again at
  // once. Without the stream (or JavaScript), htmx asks every 30 s as before.
  function startLive() {
    var live = document.getElementById("live");
    var url = live && live.getAttribute("data-live-stream");
    if (!url || !window.EventSource || !window.htmx || window.deadmailStream) return;
    var stream = window.deadmailStream = new EventSource(url);
    var look = function (event) {
      var current = document.getElementById("live");
      if (current && event.data && event.data !== current.getAttribute("data-stamp")) {
        current.setAttribute("data-stamp", event.data);
        window.htmx.trigger(current, "refresh");
      }
    };
    stream.addEventListener("stamp", look);
    stream.addEventListener("change", look);
  }

  function start() {
    startNotifications();
    startLive();
    // a form sent with htmx (hx-boost) swaps the page's body: its new controls are started too
    document.addEventListener("htmx:afterSettle", function () {
      startNotifications();
      startLive();
    });
    Array.prototype.forEach.call(document.querySelectorAll("select[data-zone-guess]"), guessZone);
    var buttons = document.querySelectorAll("button.copy-button[data-copy]");
    Array.prototype.forEach.call(buttons, function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { copy(button); });
    });
    // a click in a link's field selects all of it, ready to copy by hand
    var fields = document.querySelectorAll(".copy-field input[readonly]");
    Array.prototype.forEach.call(fields, function (field) {
      field.addEventListener("focus", function () { field.select(); });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
