import type { FastifyInstance } from 'fastify';

// The page the invitation e-mail links to: it reads the token from its own address and posts
// it, with the name and password typed in, to POST /api/v1/invitations/accept.
const page = (apiPrefix: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Accept your invitation · SDCS</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input { width: 100%; padding: .5rem; font: inherit; box-sizing: border-box; }
  button { margin-top: 1.5rem; padding: .6rem 1.2rem; font: inherit; cursor: pointer; }
  #result { margin-top: 1.5rem; white-space: pre-wrap; word-break: break-all; }
  .error { color: #b42318; }
</style>
</head>
<body>
<h1>Join your organization on SDCS</h1>
<p>Choose your name and a password (at least 8 characters). If you already have an SDCS account,
enter its password.</p>
<form id="accept">
  <label for="name">Your name</label><input id="name" name="name" required maxlength="200" autocomplete="name">
  <label for="password">Password</label><input id="password" name="password" type="password" required minlength="8" autocomplete="new-password">
  <button type="submit">Accept invitation</button>
</form>
<div id="result" role="status"></div>
<script>
  const token = new URLSearchParams(location.search).get('token') || '';
  const result = document.getElementById('result');
  if (!token) { result.className = 'error'; result.textContent = 'This link has no invitation token.'; }
  document.getElementById('accept').addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { token, name: event.target.name.value, password: event.target.password.value };
    const res = await fetch('${apiPrefix}/invitations/accept', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    result.className = res.ok ? '' : 'error';
    result.textContent = res.ok
      ? 'Welcome! You can now sign in. Your access token (valid for a while):\\n' + data.accessToken
      : [data.message || 'The invitation could not be accepted.', ...(data.issues || []).map((i) => i.message)].join('\\n');
  });
</script>
</body>
</html>
`;

/** Serves the invitation acceptance page at /accept-invitation (outside the API, no credential). */
export function registerAcceptPage(app: FastifyInstance, apiPrefix: string): void {
  const html = page(apiPrefix);
  app.get(
    '/accept-invitation',
    { config: { public: true }, schema: { hide: true } },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
        )
        .header('referrer-policy', 'no-referrer')
        .send(html),
  );
}
