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

  // The table you play on (templates/seat_live.html; server/present/seat.py, pick_path): a decision form marked
  // data-picker whose choices carry data-path (what is tapped to give each, in order: "character:pinup location:3")
  // turns the elements marked data-pick (the board's rooms and the reader's tokens, the players' panels, the cards)
  // into targets. Those the next step may take are lit and become buttons (for the keyboard too), the others dim; a
  // tap takes one; once the taps name a whole choice, its radio is checked and the bar's button sends it, saying it
  // in words. The list stays, folded, for screen readers and as the way without JavaScript. The taps so far are kept
  // per window across the live part's refreshes.
  var picked = { form: "", path: [] };

  function choicesIn(form) {
    var inputs = form.querySelectorAll("input[type=radio][data-path]");
    return Array.prototype.map.call(inputs, function (input) {
      var path = input.getAttribute("data-path").split(" ").filter(function (part) { return part; });
      return { input: input, path: path, meaning: input.getAttribute("data-meaning") || "" };
    }).filter(function (choice) { return choice.path.length; });
  }

  function follows(path, prefix) {
    if (path.length < prefix.length) return false;
    for (var i = 0; i < prefix.length; i++) {
      if (path[i] !== prefix[i]) return false;
    }
    return true;
  }

  function element(tag, cls, text) {
    var made = document.createElement(tag);
    if (cls) made.className = cls;
    if (text) made.textContent = text;
    return made;
  }

  function pickerBar(form) {
    var bar = form.querySelector(".picker-bar");
    if (bar) return bar;
    bar = element("div", "picker-bar");
    bar.appendChild(element("p", "pick-ask"));
    bar.appendChild(element("p", "pick-prompt")).setAttribute("aria-live", "polite");
    bar.appendChild(element("p", "pick-extra"));
    var actions = bar.appendChild(element("p", "pick-actions"));
    var send = actions.appendChild(element("button", "big pick-send"));
    send.type = "submit";
    var again = actions.appendChild(element("button", "secondary pick-again", form.getAttribute("data-again")));
    again.type = "button";
    again.addEventListener("click", function () {
      picked.path = [];
      applyPicks();
    });
    var fieldset = form.querySelector("fieldset");
    form.insertBefore(bar, fieldset);
    var list = element("details", "pick-list");
    list.appendChild(element("summary", "", form.getAttribute("data-list")));
    form.insertBefore(list, fieldset);
    list.appendChild(fieldset);
    form.addEventListener("change", function (event) {
      var input = event.target;
      if (input && input.getAttribute && input.getAttribute("data-path") !== null) {
        picked.path = input.getAttribute("data-path").split(" ").filter(function (part) { return part; });
        applyPicks();
      }
    });
    return bar;
  }

  function unlight(target) {
    target.classList.remove("pick-lit", "pick-chosen");
    target.removeAttribute("data-pick-value");
    if (target.hasAttribute("data-role-was")) {
      var was = target.getAttribute("data-role-was");
      if (was) target.setAttribute("role", was);
      else target.removeAttribute("role");
      target.removeAttribute("data-role-was");
      target.removeAttribute("tabindex");
    }
  }

  function light(target, value) {
    target.classList.add("pick-lit");
    target.setAttribute("data-pick-value", value);
    if (!target.hasAttribute("data-role-was")) target.setAttribute("data-role-was", target.getAttribute("role") || "");
    target.setAttribute("role", "button");
    target.setAttribute("tabindex", "0");
  }

  function applyPicks() {
    var form = document.querySelector("form.decision-form[data-picker]");
    var targets = document.querySelectorAll("[data-pick]");
    Array.prototype.forEach.call(targets, unlight);
    Array.prototype.forEach.call(document.querySelectorAll("svg.board[data-role-was]"), unlight);
    var choices = form ? choicesIn(form) : [];
    document.body.removeAttribute("data-picking");
    if (!choices.length) return;
    if (picked.form !== form.id) picked = { form: form.id, path: [] };
    var live = choices.filter(function (choice) { return follows(choice.path, picked.path); });
    if (!live.length) {
      picked.path = [];
      live = choices;
    }
    var depth = picked.path.length;
    var exact = live.filter(function (choice) { return choice.path.length === depth; })[0];
    var next = [];
    live.forEach(function (choice) {
      var value = choice.path[depth];
      if (value !== undefined && next.indexOf(value) < 0) next.push(value);
    });
    // what kinds of target the step takes (their others are dimmed)
    document.body.setAttribute("data-picking", next.map(function (value) { return value.split(":")[0]; }).join(" "));
    var shown = {};
    Array.prototype.forEach.call(targets, function (target) {
      var value = target.getAttribute("data-pick");
      if (next.indexOf(value) >= 0) {
        light(target, value);
        shown[value] = true;
      } else if (picked.path.indexOf(value) >= 0) {
        target.classList.add("pick-chosen");
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll("svg.board"), function (board) {
      if (board.querySelector(".pick-lit")) {  // its rooms and tokens are buttons now: the picture a group of them
        board.setAttribute("data-role-was", board.getAttribute("role") || "");
        board.setAttribute("role", "group");
      }
    });
    var bar = pickerBar(form);
    var extra = bar.querySelector(".pick-extra");
    extra.textContent = "";
    next.forEach(function (value) {  // what the page does not show (to pass): a button in the bar
      if (shown[value]) return;
      var alone = live.filter(function (choice) { return choice.path[depth] === value; })[0];
      var button = extra.appendChild(element("button", "secondary pick-lit", alone ? alone.meaning : value));
      button.type = "button";
      button.setAttribute("data-pick-value", value);
    });
    // what is asked, where, and the time left (drawn again with the live part: kept current)
    var ask = document.querySelector("[data-ask]");
    bar.querySelector(".pick-ask").textContent = ask ? ask.getAttribute("data-ask") : "";
    var steps = form.querySelectorAll(".pick-steps li");
    var prompt = next.length && steps[Math.min(depth, steps.length - 1)];
    bar.querySelector(".pick-prompt").textContent = prompt ? prompt.textContent : "";
    var send = bar.querySelector(".pick-send");
    send.hidden = !exact;
    bar.querySelector(".pick-again").hidden = depth === 0;
    if (exact) {
      exact.input.checked = true;
      send.textContent = form.getAttribute("data-send").replace("{answer}", exact.meaning);
    }
  }

  function take(target) {
    var value = target.getAttribute("data-pick-value");
    if (!value) return;
    picked.path.push(value);
    applyPicks();
    var form = document.querySelector("form.decision-form[data-picker]");
    var send = form && form.querySelector(".pick-send");
    var first = document.querySelector(".pick-lit");
    if (send && !send.hidden) send.focus();
    else if (first) first.focus();
  }

  function startPicker() {
    document.addEventListener("click", function (event) {
      var target = event.target.closest && event.target.closest(".pick-lit");
      if (target) {
        event.preventDefault();
        take(target);
      }
    });
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      if ((event.key === "Enter" || event.key === " ") && target.classList && target.classList.contains("pick-lit")) {
        event.preventDefault();
        take(target);
      }
    });
    applyPicks();
  }

  // the replay: the arrow keys follow the links that carry their key (data-key), unless a field has the focus
  function startKeys() {
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      var where = event.target;
      if (where && where.closest && where.closest("input, textarea, select, [contenteditable]")) { return; }
      var link = document.querySelector('a[data-key="' + event.key + '"]');
      if (link) {
        event.preventDefault();
        window.location.href = link.href;
      }
    });
  }

  function start() {
    startKeys();
    startNotifications();
    startLive();
    // a form sent with htmx (hx-boost) swaps the page's body: its new controls are started too
    startPicker();
    document.addEventListener("htmx:afterSettle", function () {
      startNotifications();
      startLive();
      applyPicks();
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
