// Partida's only script of its own (the Content Security Policy allows no inline script or
// handler): a click in a read-only field marked data-select-on-click selects its text, so a
// token or an invitation link is easy to copy.
document.addEventListener("click", function (event) {
  var field = event.target.closest && event.target.closest("input[data-select-on-click]");
  if (field) {
    field.select();
  }
});
