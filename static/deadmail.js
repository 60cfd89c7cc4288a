// deadmail's own script (the Content-Security-Policy allows scripts from this site only, never inline). Pages work
// without it: it only adds conveniences.
//
// Copy buttons (templates/organiser/_copy.html): a read-only field holding a link, and a button, hidden in the page,
// that this script shows; a click copies the link and says "Copied" in the field's live region.
//
// Time zones (templates/_zones.html): a select marked data-zone-guess holds no zone the reader chose yet; this script
// selects the browser's own zone (adding it when the list lacks it: the server accepts any zone it knows) and shows
// the hint that says so. A page may load this script twice (a zone select and copy buttons): it runs once.
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

  function start() {
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
