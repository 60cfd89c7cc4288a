// deadmail's service worker (served at /sw.js: its scope is the whole site).
//
// It shows the notifications the server pushes (Web Push; the payload is {title, body, url, tag}: which game, what is
// asked and by when, never a card) and opens the decision when one is clicked (an open tab of that page is focused
// instead). A newer notification of a game replaces the older one (the same tag).
//
// It keeps only the site's public static files (the stylesheet, scripts, icons) in its cache, so an installed table
// starts fast. Pages are never cached by it: every seat and hub page holds secrets and comes from the network, for its
// own address only.
"use strict";

var CACHE = "deadmail-static-1";
var STATIC = "/static/";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) { return name !== CACHE; }).map(function (name) {
        return caches.delete(name);
      }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.indexOf(STATIC) !== 0) {
    return; // pages, forms and the API: straight to the network, never kept
  }
  event.respondWith(
    caches.open(CACHE).then(function (cache) {
      return cache.match(event.request).then(function (kept) {
        var fetched = fetch(event.request).then(function (response) {
          if (response.ok) cache.put(event.request, response.clone());
          return response;
        });
        return kept || fetched;
      });
    })
  );
});

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "deadmail", {
      body: data.body || "",
      tag: data.tag || "deadmail",
      renotify: true,
      icon: "/static/icon-192.png",
      badge: "/static/icon-192.png",
      data: { url: data.url || "/" }
    })
  );
});

// The seat a page shows: its path without the link's signature and date ("/s/<payload>.<date>.<signature>": the
// payload names the seat and the link's generation), so that a tab opened from an older mail of the same seat counts
// as that seat's page; another path counts as itself.
function seatOf(url) {
  var parts = url.pathname.split("/");
  return parts[1] === "s" && parts[2] ? "/s/" + parts[2].split(".")[0] : url.pathname;
}

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var target = (event.notification.data && event.notification.data.url) || "/";
  var page = new URL(target, self.location.origin);
  if (page.origin !== self.location.origin) page = new URL("/", self.location.origin);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (open) {
      for (var i = 0; i < open.length; i++) {
        var client = new URL(open[i].url);
        if (seatOf(client) === seatOf(page)) {
          var tab = open[i];
          // the decision's page is open: it shows the decision now (focusing it may be refused: it still shows)
          return tab.navigate(page.href).then(function (shown) {
            return (shown || tab).focus().catch(function () { return shown || tab; });
          });
        }
      }
      return self.clients.openWindow(page.href);
    })
  );
});
