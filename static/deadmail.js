// deadmail's own script (the Content-Security-Policy allows scripts from this site only, never inline). Pages work
// without it: it only adds conveniences.
//
// Copy buttons (templates/organiser/_copy.html): a read-only field holding a link, and a button, hidden in the page,
// that this script shows; a click copies the link and says "Copied" in the field's live region.
(function () {
  "use strict";

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

  function start() {
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
