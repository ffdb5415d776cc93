/**
 * The inline script index.html runs before any module loads: when the browser holds a session (its readable
 * `XSRF-TOKEN` cookie), it asks at once who is signed in (`users/-/permissions`) and for the plugin UIs
 * (`plugins/-/uis`), and preloads each plugin UI's entry module as soon as that list arrives. The console's client
 * takes these answers instead of asking again (packages/console-shared/src/early-requests.ts), so start-up waits for
 * one round trip made while its own code loads, not for two made one after the other once it has run.
 */
export function earlyRequestsScript(consoleApi: string): string {
  return `(function () {
  if (!/(?:^|;\\s*)XSRF-TOKEN=/.test(document.cookie)) return;
  var api = ${JSON.stringify(consoleApi)};
  var early = (window.svcEarly = {});
  function get(path) {
    var answer = fetch(api + path, { credentials: 'same-origin', headers: { accept: 'application/json, application/problem+json' } });
    answer.catch(function () {});
    early[api + path] = answer;
    return answer;
  }
  get('/users/-/permissions');
  get('/plugins/-/uis')
    .then(function (response) { return response.ok ? response.clone().json() : { items: [] }; })
    .then(function (list) {
      list.items.forEach(function (ui) {
        var link = document.createElement('link');
        link.rel = 'modulepreload';
        link.href = ui.entry;
        document.head.appendChild(link);
      });
    })
    .catch(function () {});
})();`;
}
