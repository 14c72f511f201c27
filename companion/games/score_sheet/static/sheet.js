// Score sheet: the − and + buttons beside a count move the number in its field by one (never below 0);
// the ± button beside a points row that may be negative flips the sign (a phone's number pad may have
// no minus key). Without this script the field is typed in; the rules judge the value either way.
document.addEventListener("click", (event) => {
  const button = event.target.closest(".score-sheet .ss-step");
  if (!button) return;
  const field = button.parentElement.querySelector("input[name=value]");
  const now = parseInt(field.value.replace("\u2212", "-"), 10);
  const value = Number.isNaN(now) ? 0 : now;
  if (button.dataset.step === "neg") {
    field.value = String(-value);
  } else {
    field.value = String(Math.max(0, value + Number(button.dataset.step)));
  }
});
