// GET /admin/config and GET /admin/status through the gateway (routes.md §24), on both engines:
// the configuration shows its non-secret settings but none of the secrets set in the environment
// (client secrets, passwords, keys, URLs' passwords such as SMTP's and AMQP's, whether by field
// name or in a URL); the status
// names each dependency with its health (the database, a remote backend that answers, one that
// does not, the embedded ones); non-administrators are refused both.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { requiredInCi } from '../support/gateway.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';

const secrets = {
  EXTAPI_CLIENT_SECRET: 'client-secret-value-1',
  BACKEND_SECRET: 'backend-secret-value-2',
  SEARCH_SECRET: 'search-secret-value-3',
  PIDPROVIDER_PASSWORD: 'pid-password-value-4',
  TOKEN_ENCRYPTION_KEY: 'ab'.repeat(32),
  smtpPassword: 'smtp-password-value-5',
  searchUrlPassword: 'search-url-password-6',
  databasePassword: 'database-password-7',
  amqpPassword: 'amqp-password-value-8',
  AUTH_CLIENT_SECRET: 'gateway-client-secret-9',
  IDP_CLIENT_DE_UI_SECRET: 'ui-client-secret-value-10',
  blobStoreSecret: 'blob-store-secret-key-11',
};

/** A PEM private key's base64 body, one line: what must not appear in any spelling. */
const pemOf = (type: 'rsa' | 'ec') =>
  (type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: 'P-256' })
  ).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
const keys = {
  IDP_SIGNING_KEY: pemOf('rsa'),
  AUTH_SIGNING_KEY: pemOf('ec'),
  SERVICE_TOKEN_KEY: pemOf('ec'),
};
const keyMaterial = (pem: string) =>
  pem
    .split('\n')
    .filter((line) => line && !line.startsWith('-----'))
    .slice(0, 2);

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`/admin/config and /admin/status (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let answering: TestBackend;
    let dropDatabase = async () => {};

    before(async () => {
      answering = await startBackend((_request, response) => {
        response.writeHead(200);
        response.end('{}');
      });
      const env: Record<string, string> = {
        UID_DOMAIN: 'config.example',
        EXTAPI_AUTHORIZE_URL: 'https://provider.example/authorize',
        EXTAPI_TOKEN_URL: 'https://provider.example/token',
        EXTAPI_CLIENT_ID: 'visible-client-id',
        EXTAPI_CLIENT_SECRET: secrets.EXTAPI_CLIENT_SECRET,
        BACKEND_SECRET: secrets.BACKEND_SECRET,
        // A backend with credentials in its URL, that nothing answers: status shows it failing.
        SEARCH_URL: `http://searcher:${secrets.searchUrlPassword}@127.0.0.1:1/`,
        SEARCH_SECRET: secrets.SEARCH_SECRET,
        GENOMESVC_URL: answering.url,
        PIDPROVIDER_USER: 'visible-pid-user',
        PIDPROVIDER_PASSWORD: secrets.PIDPROVIDER_PASSWORD,
        TOKEN_ENCRYPTION_KEY: secrets.TOKEN_ENCRYPTION_KEY,
        SMTP_URL: `smtp://mailer:${secrets.smtpPassword}@mail.example:25`,
        // A broker nothing answers: the live-notification publisher keeps retrying, harmlessly.
        AMQP_URI: `amqp://rabbit:${secrets.amqpPassword}@127.0.0.1:1/`,
        AUTH_CLIENT_SECRET: secrets.AUTH_CLIENT_SECRET,
        IDP_CLIENT_DE_UI_SECRET: secrets.IDP_CLIENT_DE_UI_SECRET,
        ...keys,
        // A bucket nothing answers: readiness shows it failing, the configuration hides its key.
        BLOB_STORE_URL: `s3://blob-key-id:${secrets.blobStoreSecret}@bucket/prefix?endpoint=http://127.0.0.1:1&region=us-east-1&forcePathStyle=true`,
      };
      if (engine === 'postgres') {
        const databaseUrl = requiredInCi('DATABASE_URL');
        if (!databaseUrl) return;
        const pgDatabase = await pgDatabaseUrl(databaseUrl);
        dropDatabase = pgDatabase.drop;
        // The local server trusts loopback, so the password is carried but not needed.
        const withPassword = new URL(pgDatabase.url);
        withPassword.password = secrets.databasePassword;
        env.DATABASE_URL = withPassword.toString();
      }
      g = await startMetadataGateway({ env });
    });
    after(async () => {
      await g?.close();
      await answering?.close();
      await dropDatabase();
    });

    test('the configuration holds no secret and shows the rest', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const config = await g.call(admin, 'GET', '/admin/config');
      assert.equal(config.status, 200, config.text);
      for (const [name, value] of Object.entries(secrets)) {
        if (engine === 'sqlite' && name === 'databasePassword') continue;
        assert.ok(!config.text.includes(value), `${name} appears in /admin/config`);
      }
      for (const [name, pem] of Object.entries(keys))
        for (const line of keyMaterial(pem))
          assert.ok(!config.text.includes(line), `${name} appears in /admin/config`);
      // The key is not there in any other spelling either.
      assert.ok(!config.text.includes(Buffer.from('ab'.repeat(32), 'hex').toString('base64')));
      assert.equal(config.body.uidDomain, 'config.example');
      assert.equal(config.body.oauth.apis.extapi.clientId, 'visible-client-id');
      assert.equal(config.body.oauth.apis.extapi.clientSecret, '********');
      assert.equal(config.body.oauth.apis.extapi.tokenUrl, 'https://provider.example/token');
      assert.equal(config.body.backendSecret, '********');
      assert.equal(config.body.oauth.tokenEncryptionKey, '********');
      assert.equal(config.body.pid.user, 'visible-pid-user');
      assert.equal(config.body.pid.password, '********');
      assert.equal(config.body.backends.search.secret, '********');
      assert.equal(config.body.backends.search.url, 'http://searcher:********@127.0.0.1:1/');
      assert.equal(config.body.email.smtpUrl, 'smtp://mailer:********@mail.example:25');
      assert.equal(config.body.notifications.amqp.uri, 'amqp://rabbit:********@127.0.0.1:1/');
      assert.equal(config.body.notifications.amqp.exchange, 'de');
      if (engine === 'postgres') {
        assert.match(config.body.databaseUrl, /^postgres:\/\/postgres:\*{8}@127\.0\.0\.1/);
      }
    });

    test('the status names each dependency and its health', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const status = await g.call(admin, 'GET', '/admin/status');
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.status, 'degraded');
      assert.equal(status.body.database, true);
      assert.equal(status.body.checks.database, 'ok');
      assert.deepEqual(status.body.backends.genomesvc, {
        mode: 'remote',
        healthy: true,
        detail: 'ok',
      });
      assert.equal(status.body.backends.search.mode, 'remote');
      assert.equal(status.body.backends.search.healthy, false);
      assert.match(status.body.backends.search.detail, /^unavailable/);
      assert.deepEqual(status.body.backends.apps, {
        mode: 'embedded',
        healthy: true,
        detail: 'ok',
      });
      assert.equal(status.body.backends.dashboard.mode, 'absent');
      assert.equal(status.body.backends.dashboard.healthy, false);
      for (const legacy of ['datastore', 'jex', 'apps', 'notificationagent', 'pidprovider'])
        assert.equal(status.body[legacy], true, legacy);
      assert.ok(!status.text.includes(secrets.searchUrlPassword));
    });

    test('non-administrators are refused both', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      for (const path of ['/admin/config', '/admin/status']) {
        const refused = await g.call('alice', 'GET', path);
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
        const anonymous = await g.call(null, 'GET', path);
        assert.equal(anonymous.status, 401, anonymous.text);
      }
    });
  });
}
