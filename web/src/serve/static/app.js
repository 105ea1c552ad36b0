// bugrank's only script, served from /static/app.js so that the Content-Security-Policy
// can forbid every inline script. Each part acts only on a page that has its element.

// The analysis page while it runs: poll the API and move the progress bar.
(function () {
  const live = document.getElementById('live');
  if (!live) return;
  const id = live.dataset.analysis;
  (function poll() {
    fetch('/api/analyses/' + id, {credentials: 'same-origin'}).then(r => r.json()).then(v => {
      if (v.analysis.status !== 'queued' && v.analysis.status !== 'running') { location.reload(); return; }
      const p = v.progress;
      if (p) {
        document.getElementById('bar').value = p.percent;
        document.getElementById('phase').textContent = p.phase === 'compiling' ? 'compiling ' + p.compiled + '/' + p.answers :
          p.phase + ': ' + p.tests_generated + ' tests tried, suite of ' + p.suite_size +
          (p.phase === 'explaining' ? ', bug lists ' + p.explained + '/' + p.answers : ', ' + p.stable_run + '/' + p.stable_after + ' without news');
      }
      document.getElementById('status').textContent = v.analysis.status;
      setTimeout(poll, 500);
    }).catch(() => setTimeout(poll, 2000));
  })();
})();

// The experiment page: the ticked batches go into one field.
(function () {
  const form = document.getElementById('experiment');
  if (!form) return;
  form.addEventListener('submit', function () {
    this.batches.value = Array.from(document.querySelectorAll('input.batch:checked')).map(b => b.value).join(',');
  });
})();

// Forms that undo something for good (revoking a student's link) ask first.
document.querySelectorAll('form[data-confirm]').forEach(function (form) {
  form.addEventListener('submit', function (event) {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
});
