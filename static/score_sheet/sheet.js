// Score sheet: the − and + buttons beside a count move the number in its field by one (never below 0).
// Without this script the field is typed in; the rules judge the value either way.
document.addEventListener("click", (event) => {
  const button = event.target.closest(".score-sheet .ss-step");
  if (!button) return;
  const field = button.parentElement.querySelector("input[name=value]");
  const now = parseInt(field.value, 10);
  field.value = String(Math.max(0, (Number.isNaN(now) ? 0 : now) + Number(button.dataset.step)));
});
