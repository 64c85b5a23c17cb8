// A real OpenID provider (oidc-provider) for the OAuth interop test: one confidential client
// with the client_credentials grant, access tokens as JWTs (RFC 9068) for the resource the
// client names (RFC 8707) with the scope mcp:use. Prints `issuer URL` once listening.
// Usage: node oidc_issuer.mjs PORT CLIENT_ID CLIENT_SECRET (oidc-provider from .cache/oidc, or
// $TINYMCP_OIDC, where scripts/deps.sh installs it).
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const oidcDir = process.env.TINYMCP_OIDC ?? resolve(here, '../../.cache/oidc');
const { default: Provider } = await import(pathToFileURL(resolve(oidcDir, 'node_modules/oidc-provider/lib/index.js')));

const [port, clientId, clientSecret] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{
    client_id: clientId,
    client_secret: clientSecret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  scopes: ['mcp:use'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => ({
        scope: 'mcp:use',
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: 300,
      }),
    },
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log(`issuer ${issuer}`));
