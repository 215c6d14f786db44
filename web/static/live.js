// The moderation queue, live: the page listens on the event stream (api.events_list's route,
// which the page names in data-events; the console's cookie signs the stream in) and, when a
// report.created event arrives, fetches this same page again and puts its queue in place of the
// old one. Everything shown was escaped by the server; nothing here builds markup from data.
// Without JavaScript the page works the same, refreshed by hand.
// Its status lines are the page's own (data-* of #live-status), so they are in the page's language.
'use strict';
(function () {
  var queue = document.getElementById('queue');
  var status = document.getElementById('live-status');
  if (!queue || !status || !status.dataset.events || !window.EventSource) { return; }
  var pending = false;

  function busy() {
    var active = document.activeElement;
    return active && queue.contains(active) && active.tagName === 'INPUT' && active.value !== '';
  }

  function refresh() {
    if (busy()) { pending = true; status.textContent = status.dataset.waiting; return; }
    pending = false;
    fetch(window.location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('queue');
        if (!fresh) { return; }
        queue.replaceWith(document.importNode(fresh, true));
        queue = document.getElementById('queue');
        status.textContent = status.dataset.updated.replace('{time}', new Date().toLocaleTimeString());
      })
      .catch(function () { status.textContent = status.dataset.failed; });
  }

  var source = new EventSource(status.dataset.events);
  source.addEventListener('open', function () { status.textContent = status.dataset.live; });
  source.addEventListener('report.created', refresh);
  source.addEventListener('resync', refresh);
  source.addEventListener('error', function () { status.textContent = status.dataset.paused; });
  document.addEventListener('focusout', function () { if (pending) { window.setTimeout(refresh, 0); } });
})();
