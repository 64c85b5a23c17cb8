// A real OpenID provider (oidc-provider) for the OAuth interop test: confidential clients with
// the client_credentials grant, access tokens for the resource the client names (RFC 8707)
// with the scopes mcp:use and mcp:admin; token introspection (RFC 7662) and revocation
// (RFC 7009). CLIENT_ID gets JWTs (RFC 9068), `CLIENT_ID-opaque` opaque tokens, and
// `CLIENT_ID-short` JWTs that live one second; all share CLIENT_SECRET.
// Prints `issuer URL` once listening.
// Usage: node oidc_issuer.mjs PORT CLIENT_ID CLIENT_SECRET (oidc-provider from .cache/oidc, or
// $TINYMCP_OIDC, where scripts/deps.sh installs it).
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const oidcDir = process.env.TINYMCP_OIDC ?? resolve(here, '../../.cache/oidc');
const { default: Provider } = await import(pathToFileURL(resolve(oidcDir, 'node_modules/oidc-provider/lib/index.js')));

const [port, clientId, clientSecret] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const client = (id) => ({
  client_id: id,
  client_secret: clientSecret,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
});
const provider = new Provider(issuer, {
  clients: [client(clientId), client(`${clientId}-opaque`), client(`${clientId}-short`)],
  scopes: ['mcp:use', 'mcp:admin'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: 'mcp:use mcp:admin',
        audience: resource,
        accessTokenFormat: client.clientId.endsWith('-opaque') ? 'opaque' : 'jwt',
        accessTokenTTL: client.clientId.endsWith('-short') ? 1 : 300,
      }),
    },
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log(`issuer ${issuer}`));
