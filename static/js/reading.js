// The scene page's reading aids (issue 15 item 4). Without this script the page still works:
// the "first unread" link is a plain anchor and polling simply keeps going.
//
// 1. A hidden tab does not poll. A poll appends the new posts and moves the reader's read
//    marker over them, so a poll in a tab nobody looks at would mark unread posts read that
//    were never shown. While the page is hidden the poller's requests are cancelled; when it
//    is shown again it polls at once ("tabvisible"), so the new posts appear then, read.
// 2. A scene opened without a cursor starts at the first unread post: the page scrolls to it
//    (the element named by data-scroll-to), unless the address already names a place (#…).
// 3. The combat panel's own polling waits while the focus is inside it (its forms).
(function () {
  document.addEventListener("htmx:beforeRequest", function (event) {
    var source = event.detail && event.detail.elt;
    if (!source) {
      return;
    }
    if (document.hidden && source.id === "poller") {
      event.preventDefault();
    }
    // The combat panel refreshes itself every 30 s, but not under the hands of someone filling
    // in its forms (htmx may not evaluate a trigger filter here: the CSP allows no eval).
    if (source.id === "combat" && document.activeElement && source.contains(document.activeElement)) {
      event.preventDefault();
    }
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && document.getElementById("poller")) {
      document.body.dispatchEvent(new CustomEvent("tabvisible"));
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    var note = document.querySelector("[data-scroll-to]");
    if (!note || window.location.hash) {
      return;
    }
    var target = document.getElementById(note.getAttribute("data-scroll-to"));
    if (target) {
      target.scrollIntoView({ block: "start" });
    }
  });
})();
