// Partida's only script of its own (the Content Security Policy allows no inline script or
// handler): a click in a read-only field marked data-select-on-click selects its text, so a
// token or an invitation link is easy to copy.
document.addEventListener("click", function (event) {
  var field = event.target.closest && event.target.closest("input[data-select-on-click]");
  if (field) {
    field.select();
  }
});

// A table wider than its box (a diary on a phone) scrolls sideways: the box becomes a focusable,
// labelled region (keyboard users can scroll it) and a line above says so. Without this
// script the table still scrolls; only the hint is missing.
function markScrollingTables() {
  var hint = document.body.getAttribute("data-scroll-hint") || "";
  document.querySelectorAll(".table-scroll").forEach(function (box) {
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls === box.classList.contains("scrolls")) {
      return;
    }
    box.classList.toggle("scrolls", scrolls);
    if (scrolls) {
      var caption = box.querySelector("caption");
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", caption ? caption.textContent.trim() : hint);
      var note = document.createElement("p");
      note.className = "scroll-hint";
      note.textContent = hint;
      box.parentNode.insertBefore(note, box);
    } else {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
      var previous = box.previousElementSibling;
      if (previous && previous.className === "scroll-hint") {
        previous.remove();
      }
    }
  });
}
document.addEventListener("DOMContentLoaded", markScrollingTables);
window.addEventListener("resize", markScrollingTables);
document.addEventListener("htmx:afterSettle", markScrollingTables);
