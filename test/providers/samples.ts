/**
 * Realistic deliveries, one or more per provider in the table, shaped after each sender's
 * documented headers and example payloads (ids and secrets are made up). Every sample also carries
 * the noise a real capture has: user agent, proxy headers, content length.
 */
import type { DetectInput } from '../../src/engine/providers';

export interface Sample {
  name: string;
  input: DetectInput;
  provider: string;
  event: string;
}

const JSON_CT = 'application/json';
const FORM_CT = 'application/x-www-form-urlencoded';

interface RequestSpec {
  headers?: Record<string, string>;
  body?: unknown;
  contentType?: string;
  method?: string;
  query?: Record<string, string | string[]>;
}

/** A captured request: JSON bodies are serialised, and the usual proxy noise is added. */
export function request(spec: RequestSpec): DetectInput {
  const contentType = spec.contentType ?? (spec.body === undefined ? '' : JSON_CT);
  const body = spec.body === undefined ? '' : typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
  const headers: Record<string, string> = {
    host: 'hooks.example.com',
    'x-forwarded-for': '203.0.113.7',
    'x-forwarded-proto': 'https',
    'accept-encoding': 'gzip',
    'content-length': String(Buffer.byteLength(body)),
    ...(contentType ? { 'content-type': contentType } : {}),
    ...spec.headers,
  };
  return { headers, body, contentType, method: spec.method ?? 'POST', query: spec.query ?? {} };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const SAMPLES: Sample[] = [
  {
    name: 'Stripe payment_intent.succeeded',
    provider: 'stripe',
    event: 'payment_intent.succeeded',
    input: request({
      headers: {
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        'stripe-signature': 't=1714000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39',
      },
      body: {
        id: 'evt_3P1abc',
        object: 'event',
        api_version: '2024-04-10',
        created: 1714000000,
        data: { object: { id: 'pi_3P1abc', object: 'payment_intent', amount: 2000, currency: 'usd', status: 'succeeded' } },
        livemode: false,
        pending_webhooks: 1,
        request: { id: 'req_abc', idempotency_key: null },
        type: 'payment_intent.succeeded',
      },
      contentType: 'application/json; charset=utf-8',
    }),
  },
  {
    name: 'GitHub pull_request opened',
    provider: 'github',
    event: 'pull_request.opened',
    input: request({
      headers: {
        'user-agent': 'GitHub-Hookshot/5b1d2f3',
        'x-github-event': 'pull_request',
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-github-hook-id': '292430182',
        'x-github-hook-installation-target-id': '79929171',
        'x-github-hook-installation-target-type': 'repository',
        'x-hub-signature': 'sha1=7d38cdd689735b008b3c702edd92eea23791c5f6',
        'x-hub-signature-256': 'sha256=d57c68ca6f92289e6987922ff26938930f6e66a2d161ef06abdf1859230aa23c',
      },
      body: { action: 'opened', number: 2, pull_request: { id: 279147437, state: 'open', title: 'Update the README' }, repository: { id: 186853002, full_name: 'Codertocat/Hello-World' }, sender: { login: 'Codertocat' } },
    }),
  },
  {
    name: 'GitHub push (no action)',
    provider: 'github',
    event: 'push',
    input: request({
      headers: { 'user-agent': 'GitHub-Hookshot/5b1d2f3', 'x-github-event': 'push', 'x-github-delivery': 'a1b2c3', 'x-github-hook-id': '1' },
      body: { ref: 'refs/heads/main', before: '6113728f', after: '0000000000', repository: { full_name: 'octo/repo' }, pusher: { name: 'octo' } },
    }),
  },
  {
    name: 'GitHub ping sent form-encoded',
    provider: 'github',
    event: 'ping',
    input: request({
      headers: { 'user-agent': 'GitHub-Hookshot/5b1d2f3', 'x-github-event': 'ping', 'x-github-delivery': 'd1', 'x-github-hook-id': '2' },
      body: form({ payload: JSON.stringify({ zen: 'Design for failure.', hook_id: 2 }) }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Forgejo push (also sends Gitea, Gogs and GitHub headers)',
    provider: 'forgejo',
    event: 'push',
    input: request({
      headers: {
        'user-agent': 'Go-http-client/1.1',
        'x-forgejo-event': 'push',
        'x-forgejo-delivery': '9f4e',
        'x-forgejo-signature': 'b2f1',
        'x-gitea-event': 'push',
        'x-gitea-delivery': '9f4e',
        'x-gogs-event': 'push',
        'x-github-event': 'push',
        'x-github-delivery': '9f4e',
        'x-hub-signature-256': 'sha256=b2f1',
      },
      body: { ref: 'refs/heads/main', before: 'a', after: 'b', repository: { full_name: 'me/repo' } },
    }),
  },
  {
    name: 'Gitea pull_request (also sends X-GitHub-Event)',
    provider: 'gitea',
    event: 'pull_request.opened',
    input: request({
      headers: {
        'x-gitea-event': 'pull_request',
        'x-gitea-event-type': 'pull_request',
        'x-gitea-delivery': '1f3c',
        'x-gitea-signature': 'c0ffee',
        'x-gogs-event': 'pull_request',
        'x-github-event': 'pull_request',
        'x-github-delivery': '1f3c',
      },
      body: { action: 'opened', number: 1, pull_request: { id: 1, title: 'x' }, repository: { full_name: 'me/repo' } },
    }),
  },
  {
    name: 'Gogs push',
    provider: 'gogs',
    event: 'push',
    input: request({
      headers: { 'x-gogs-event': 'push', 'x-gogs-delivery': 'f0e1', 'x-gogs-signature': 'abcd' },
      body: { ref: 'refs/heads/master', before: 'a', after: 'b', repository: { full_name: 'u/r' } },
    }),
  },
  {
    name: 'GitLab merge request',
    provider: 'gitlab',
    event: 'merge_request.open',
    input: request({
      headers: {
        'user-agent': 'GitLab/17.3.0',
        'x-gitlab-event': 'Merge Request Hook',
        'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e',
        'x-gitlab-webhook-uuid': '2aa4c3ff-a3bd-4bbf-9e23-f1f0cf6d0d3f',
        'x-gitlab-instance': 'https://gitlab.com',
        'x-gitlab-token': 'secret',
      },
      body: { object_kind: 'merge_request', event_type: 'merge_request', user: { username: 'root' }, project: { id: 1 }, object_attributes: { id: 99, iid: 1, action: 'open', state: 'opened' } },
    }),
  },
  {
    name: 'GitLab push signed with Standard Webhooks headers',
    provider: 'gitlab',
    event: 'push',
    input: request({
      headers: {
        'user-agent': 'GitLab/18.4.0',
        'x-gitlab-event': 'Push Hook',
        'x-gitlab-event-uuid': 'e1',
        'x-gitlab-instance': 'https://gitlab.example.com',
        'idempotency-key': 'f5c7',
        'webhook-id': 'f5c7',
        'webhook-timestamp': '1714000000',
        'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      },
      body: { object_kind: 'push', event_name: 'push', ref: 'refs/heads/main', project_id: 15, commits: [] },
    }),
  },
  {
    name: 'GitLab system hook',
    provider: 'gitlab',
    event: 'project_create',
    input: request({
      headers: { 'x-gitlab-event': 'System Hook', 'x-gitlab-instance': 'https://gitlab.example.com' },
      body: { event_name: 'project_create', created_at: '2024-01-01T00:00:00Z', name: 'p', path: 'p', project_id: 74 },
    }),
  },
  {
    name: 'Bitbucket Cloud push',
    provider: 'bitbucket',
    event: 'repo:push',
    input: request({
      headers: {
        'user-agent': 'Bitbucket-Webhooks/2.0',
        'x-event-key': 'repo:push',
        'x-hook-uuid': '{e1f0d2c4-5a6b-4c3d-9e8f-7a6b5c4d3e2f}',
        'x-request-uuid': '0b2c4d6e-8f0a-4b2c-9d4e-6f8a0b2c4d6e',
        'x-attempt-number': '1',
        'x-hub-signature': 'sha256=ab12',
      },
      body: { push: { changes: [] }, repository: { full_name: 'team/repo', type: 'repository' }, actor: { display_name: 'A' } },
    }),
  },
  {
    name: 'Bitbucket Data Center PR opened',
    provider: 'bitbucket',
    event: 'pr:opened',
    input: request({
      headers: { 'user-agent': 'Atlassian HttpClient 3.0.4', 'x-event-key': 'pr:opened', 'x-request-id': '5fd2c1b1-aaa0' },
      body: { eventKey: 'pr:opened', date: '2024-01-01T00:00:00+0000', actor: { name: 'admin' }, pullRequest: { id: 1 } },
    }),
  },
  {
    name: 'Shopify orders/create',
    provider: 'shopify',
    event: 'orders/create',
    input: request({
      headers: {
        'user-agent': 'Shopify-Captain-Hook',
        'x-shopify-topic': 'orders/create',
        'x-shopify-hmac-sha256': 'XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM=',
        'x-shopify-shop-domain': 'example.myshopify.com',
        'x-shopify-api-version': '2024-07',
        'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
        'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
        'x-shopify-triggered-at': '2024-04-24T18:36:26.123Z',
      },
      body: { id: 820982911946154500, email: 'jon@example.com', total_price: '403.00', currency: 'USD' },
    }),
  },
  {
    name: 'Slack Events API message',
    provider: 'slack',
    event: 'app_mention',
    input: request({
      headers: { 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)', 'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503', 'x-slack-request-timestamp': '1531420618' },
      body: { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', team_id: 'T061EG9RZ', api_app_id: 'A0FFV41KK', event: { type: 'app_mention', user: 'U061F7AUR', text: '<@U0LAN0Z89> hi', ts: '1515449522.000016', channel: 'C0LAN2Q65' }, type: 'event_callback', event_id: 'Ev0LAN670R', event_time: 1515449522 },
    }),
  },
  {
    name: 'Slack url_verification',
    provider: 'slack',
    event: 'url_verification',
    input: request({
      headers: { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': '1531420618' },
      body: { token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' },
    }),
  },
  {
    name: 'Slack interactive block_actions (form payload)',
    provider: 'slack',
    event: 'block_actions',
    input: request({
      headers: { 'x-slack-signature': 'v0=00', 'x-slack-request-timestamp': '1531420618' },
      body: form({ payload: JSON.stringify({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'a' }] }) }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Slack slash command',
    provider: 'slack',
    event: '/webhook-collect',
    input: request({
      headers: { 'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503', 'x-slack-request-timestamp': '1531420618' },
      body: 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Twilio SMS status callback',
    provider: 'twilio',
    event: 'message.delivered',
    input: request({
      headers: { 'user-agent': 'TwilioProxy/1.1', 'x-twilio-signature': 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', 'i-twilio-idempotency-token': 'a0f1' },
      body: form({ SmsSid: 'SM1', SmsStatus: 'delivered', MessageStatus: 'delivered', To: '+15558675310', MessageSid: 'SM1', AccountSid: 'AC1', From: '+15017122661', ApiVersion: '2010-04-01' }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Twilio incoming call',
    provider: 'twilio',
    event: 'call.ringing',
    input: request({
      headers: { 'user-agent': 'TwilioProxy/1.1', 'x-twilio-signature': 'RSOYDt4T1cUTdK1PDd93/VVr8B8=' },
      body: form({ AccountSid: 'AC1', ApiVersion: '2010-04-01', CallSid: 'CA1', CallStatus: 'ringing', Called: '+18005551212', Caller: '+14158675309', Direction: 'inbound', From: '+14158675309', To: '+18005551212' }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Twilio Conversations webhook',
    provider: 'twilio',
    event: 'onMessageAdded',
    input: request({
      headers: { 'x-twilio-signature': 'a9nBmqA0ju/hNViExpshrM61xv4=' },
      body: form({ EventType: 'onMessageAdded', ConversationSid: 'CH1', Body: 'hi', Author: 'user', AccountSid: 'AC1' }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'SendGrid event webhook (signed)',
    provider: 'sendgrid',
    event: 'delivered',
    input: request({
      headers: {
        'user-agent': 'SendGrid Event API',
        'x-twilio-email-event-webhook-signature': 'MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0=',
        'x-twilio-email-event-webhook-timestamp': '1600112502',
      },
      body: [{ email: 'example@test.com', timestamp: 1513299569, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'delivered', category: 'cat facts', sg_event_id: 'sg_event_id', sg_message_id: 'sg_message_id' }],
    }),
  },
  {
    name: 'SendGrid event webhook (unsigned)',
    provider: 'sendgrid',
    event: 'open',
    input: request({
      headers: { 'user-agent': 'SendGrid Event API' },
      body: [{ email: 'a@b.c', timestamp: 1513299569, event: 'open', sg_event_id: 'rWVYmVk90MjZJ9iohOBa3w', sg_message_id: '14c5d75ce93.dfd.64b469', useragent: 'Mozilla/4.0', ip: '255.255.255.255' }],
    }),
  },
  {
    name: 'Mailgun delivered',
    provider: 'mailgun',
    event: 'delivered',
    input: request({
      headers: { 'user-agent': 'mailgun/treq-16.12.0' },
      body: {
        signature: { timestamp: '1529006854', token: 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0', signature: 'd2271d12299f6592d9d44cd9d250f0704e4674c30d79d07c47a66f95ce71cf55' },
        'event-data': { event: 'delivered', timestamp: 1521472262.908181, id: 'CPgfbmQMTCKtHW6uIWtuVe', recipient: 'alice@example.com', message: { headers: { 'message-id': '20130503182626.18666.16540@example.com' } } },
      },
    }),
  },
  {
    name: 'Postmark bounce',
    provider: 'postmark',
    event: 'Bounce',
    input: request({
      headers: { 'user-agent': 'Postmark' },
      body: { RecordType: 'Bounce', MessageStream: 'outbound', ID: 4323372036854775807, Type: 'HardBounce', TypeCode: 1, MessageID: '883953f4-6105-42a2-a16a-77a8eac79483', Email: 'john@example.com', BouncedAt: '2019-11-05T16:33:54.9070259Z' },
    }),
  },
  {
    name: 'Postmark inbound email',
    provider: 'postmark',
    event: 'Inbound',
    input: request({
      body: { FromName: 'Postmarkapp Support', MessageStream: 'inbound', From: 'support@postmarkapp.com', FromFull: { Email: 'support@postmarkapp.com', Name: 'Postmarkapp Support', MailboxHash: '' }, To: 'x@inbound.postmarkapp.com', ToFull: [], Subject: 'Test subject', MessageID: '73e6d360-66eb-11e1-8e72-a8904824019b', MailboxHash: 'SampleHash', TextBody: 'This is a test', Headers: [], Attachments: [] },
    }),
  },
  {
    name: 'PayPal capture completed',
    provider: 'paypal',
    event: 'PAYMENT.CAPTURE.COMPLETED',
    input: request({
      headers: {
        'user-agent': 'PayPal/AUHD-214.0-58844250',
        'paypal-transmission-id': '69cd13f0-d67a-11e5-baa3-778b53f4ae55',
        'paypal-transmission-time': '2016-02-18T20:01:35Z',
        'paypal-transmission-sig': 'lmI95Jx3Y9nhR5SJWlHVIWpg4AgFk7n9bCHSRxbrd8A9zrhdu2rMyFrmz+Zjh3s3boXB07VXCXUZy/UFzUlnGJn0wDugt7FlSvdKeIJenLRemUxYCPVoEZzg9VFNqOa48gMkvF+XTpxBeUx/kWy6B5cp7GkT2+pOowfRK7OaynuxUoKW3JcMWw272VKjLTtTAShncla7tGF+55rxyt2KNZIIqxNMJ48RDZheGU5w1npu9dZHnPgTXB9iomeVRoD8O/jhRpnKsGrDschyNdkeh81BJJMH4Ctc6lnCCquoP/GzCzz33MMsNdid7vaJ6RrdHD1SNKjE0jAe3WzDVoFuQaw==',
        'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77',
        'paypal-auth-algo': 'SHA256withRSA',
      },
      body: { id: 'WH-58D329510W468432D-8HN650336L201105X', create_time: '2019-02-14T21:50:07.940Z', resource_type: 'capture', event_type: 'PAYMENT.CAPTURE.COMPLETED', summary: 'Payment completed for $ 2.51 USD', resource: { id: '27M47624FP291604U', status: 'COMPLETED' } },
    }),
  },
  {
    name: 'Square test notification',
    provider: 'square',
    event: 'webhooks.test_notification',
    input: request({
      headers: { 'user-agent': 'Square Connect v2', 'x-square-hmacsha256-signature': 'GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=', 'square-version': '2024-04-17', 'square-environment': 'Sandbox', 'square-initial-delivery-timestamp': '2022-07-13T20:30:59.037339943Z', 'square-retry-number': '0' },
      body: '{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}',
    }),
  },
  {
    name: 'Paddle Billing transaction.completed',
    provider: 'paddle',
    event: 'transaction.completed',
    input: request({
      headers: { 'user-agent': 'Paddle', 'paddle-signature': 'ts=1671552777;h1=eb4d0dc8853be92b7f063b9f3ba5233eb920a09459b6e6b2c26705b4364db151', 'paddle-version': '1' },
      body: { event_id: 'evt_01h04vsbhqc', event_type: 'transaction.completed', occurred_at: '2023-08-22T13:19:19.623684Z', notification_id: 'ntf_01h8bkrfe7', data: { id: 'txn_01h8bkqx', status: 'completed' } },
    }),
  },
  {
    name: 'Paddle Classic subscription_created',
    provider: 'paddle',
    event: 'subscription_created',
    input: request({
      body: form({ alert_id: '1451547218', alert_name: 'subscription_created', checkout_id: '7-96b01fc5a89b1b6', currency: 'USD', email: 'a@b.c', event_time: '2021-03-12 10:37:55', subscription_id: '8', p_signature: 'dGVzdA==' }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Linear issue created',
    provider: 'linear',
    event: 'Issue.create',
    input: request({
      headers: { 'user-agent': 'Linear-Webhook', 'linear-delivery': '234d1a4e-b617-4388-90fe-adc3633d6b72', 'linear-event': 'Issue', 'linear-signature': '766e1d90a96e2f5ecec342a99c5552999dd95d49250171b902d703fd674f5086' },
      body: { action: 'create', type: 'Issue', createdAt: '2024-04-24T10:00:00.000Z', data: { id: '2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9', title: 'Bug' }, url: 'https://linear.app/acme/issue/ENG-1', organizationId: 'org', webhookTimestamp: 1713952800000, webhookId: 'wh' },
    }),
  },
  {
    name: 'Discord interaction ping',
    provider: 'discord',
    event: 'PING',
    input: request({
      headers: { 'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)', 'x-signature-ed25519': 'a'.repeat(128), 'x-signature-timestamp': '1714000000' },
      body: { application_id: '123', id: '456', token: 'aW50ZXJhY3Rpb24', type: 1, user: { id: '1' }, version: 1 },
    }),
  },
  {
    name: 'Discord slash command',
    provider: 'discord',
    event: 'APPLICATION_COMMAND',
    input: request({
      headers: { 'x-signature-ed25519': 'b'.repeat(128), 'x-signature-timestamp': '1714000000' },
      body: { application_id: '123', id: '789', token: 'dG9rZW4', type: 2, data: { name: 'blep', type: 1 }, guild_id: '1', version: 1 },
    }),
  },
  {
    name: 'Discord webhook event',
    provider: 'discord',
    event: 'APPLICATION_AUTHORIZED',
    input: request({
      headers: { 'x-signature-ed25519': 'c'.repeat(128), 'x-signature-timestamp': '1714000000' },
      body: { version: 1, application_id: '1234560123453231555', type: 1, event: { type: 'APPLICATION_AUTHORIZED', timestamp: '2024-10-18T14:42:53.064834', data: { integration_type: 1, scopes: ['applications.commands'], user: { id: '1' } } } },
    }),
  },
  {
    name: 'Discord webhook event PING',
    provider: 'discord',
    event: 'PING',
    input: request({
      headers: { 'x-signature-ed25519': 'd'.repeat(128), 'x-signature-timestamp': '1714000000' },
      body: { version: 1, application_id: '1234560123453231555', type: 0 },
    }),
  },
  {
    name: 'Zoom meeting.started',
    provider: 'zoom',
    event: 'meeting.started',
    input: request({
      headers: { 'user-agent': 'Zoom Marketplace/1.0a', 'x-zm-request-timestamp': '1714000000', 'x-zm-signature': 'v0=a05d830fa017433bc47887f835a00b9ff33d3882f22f63a2986a8' },
      body: { event: 'meeting.started', event_ts: 1626230691572, payload: { account_id: 'AAAAAABBBB', object: { id: '1234567890', topic: 'My Meeting' } } },
    }),
  },
  {
    name: 'Zoom endpoint.url_validation',
    provider: 'zoom',
    event: 'endpoint.url_validation',
    input: request({
      headers: { 'x-zm-request-timestamp': '1714000000', 'x-zm-signature': 'v0=00' },
      body: { payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' }, event_ts: 1654503849680, event: 'endpoint.url_validation' },
    }),
  },
  {
    name: 'Twitch channel.follow notification',
    provider: 'twitch',
    event: 'channel.follow',
    input: request({
      headers: {
        'user-agent': 'Twitch-Eventsub-Webhooks/1.0',
        'twitch-eventsub-message-id': 'befa7b53-d79d-478f-86b9-120f112b044e',
        'twitch-eventsub-message-retry': '0',
        'twitch-eventsub-message-type': 'notification',
        'twitch-eventsub-message-signature': 'sha256=c1f92c51dab9888b0d6fb5f7e8e758',
        'twitch-eventsub-message-timestamp': '2019-11-16T10:11:12.634234626Z',
        'twitch-eventsub-subscription-type': 'channel.follow',
        'twitch-eventsub-subscription-version': '2',
      },
      body: { subscription: { id: 'f1c2a387', type: 'channel.follow', version: '2', status: 'enabled' }, event: { user_id: '1234', broadcaster_user_id: '1337' } },
    }),
  },
  {
    name: 'Twitch callback verification',
    provider: 'twitch',
    event: 'webhook_callback_verification',
    input: request({
      headers: {
        'twitch-eventsub-message-id': 'e76c6bd4-55c9-4987-8304-da1588d8988b',
        'twitch-eventsub-message-type': 'webhook_callback_verification',
        'twitch-eventsub-message-signature': 'sha256=f56bf6ce06a1adf46fa27831d7d15d',
        'twitch-eventsub-message-timestamp': '2019-11-16T10:11:12.634234626Z',
        'twitch-eventsub-subscription-type': 'channel.follow',
        'twitch-eventsub-subscription-version': '2',
      },
      body: { challenge: 'pogchamp-kappa-360noscope-vohiyo', subscription: { id: 'f1c2a387', status: 'webhook_callback_verification_pending', type: 'channel.follow' } },
    }),
  },
  {
    name: 'Intercom conversation.user.created',
    provider: 'intercom',
    event: 'conversation.user.created',
    input: request({
      headers: { 'user-agent': 'Intercom-Webhooks-Client/1.0', 'x-hub-signature': 'sha1=e0b4d2c8f1a3' },
      body: { type: 'notification_event', app_id: 'a86dr8yl', data: { type: 'notification_event_data', item: { type: 'conversation', id: '147' } }, links: {}, id: 'notif_ccd8a4d0-f965-11e3-a367-c779cae3e1b3', topic: 'conversation.user.created', delivery_status: 'pending', delivery_attempts: 1, delivered_at: 0, first_sent_at: 1392731331, created_at: 1392731331, self: null },
    }),
  },
  {
    name: 'HubSpot contact.creation batch',
    provider: 'hubspot',
    event: 'contact.creation',
    input: request({
      headers: { 'user-agent': 'HubSpot Connect 2.0 (http://dev.hubspot.com/)', 'x-hubspot-signature': 'a'.repeat(64), 'x-hubspot-signature-v3': 'NtFxcQ0rQ6u5qvczf2JPWlP4o9Hk2s0ksBaHkHkzEHw=', 'x-hubspot-signature-version': 'v1', 'x-hubspot-request-timestamp': '1714000000000' },
      body: [{ eventId: 100, subscriptionId: 2395, portalId: 62515, appId: 1160452, occurredAt: 1714000000000, subscriptionType: 'contact.creation', attemptNumber: 0, objectId: 123, changeFlag: 'CREATED', changeSource: 'CRM' }],
    }),
  },
  {
    name: 'Jira Cloud issue created',
    provider: 'jira',
    event: 'jira:issue_created',
    input: request({
      headers: { 'user-agent': 'Atlassian Webhook HTTP Client', 'x-atlassian-webhook-identifier': '2188318-7bdd5f0e-86c1-4f8b-9a73', 'x-atlassian-webhook-retry': '0', 'x-hub-signature': 'sha256=1a2b' },
      body: { timestamp: 1714000000000, webhookEvent: 'jira:issue_created', issue_event_type_name: 'issue_created', user: { accountId: '5b10a2844c20165700ede21g' }, issue: { id: '10001', key: 'ENG-1' } },
    }),
  },
  {
    name: 'Jira Data Center comment (no Atlassian header)',
    provider: 'jira',
    event: 'comment_created',
    input: request({
      headers: { 'user-agent': 'Apache-HttpClient/4.5.13 (Java/11.0.19)' },
      body: { timestamp: 1714000000000, webhookEvent: 'comment_created', comment: { id: '10000', body: 'hi' }, issue: { id: '10001', key: 'ENG-1' } },
    }),
  },
  {
    name: 'Vercel deployment.succeeded',
    provider: 'vercel',
    event: 'deployment.succeeded',
    input: request({
      headers: { 'user-agent': 'Vercel-Webhooks/1.0', 'x-vercel-signature': '9f2c0a35d6e6d1c8f5a4b7e2d1c0b9a8f7e6d5c4', 'x-vercel-id': 'iad1::abc' },
      body: { id: 'uj4h2', type: 'deployment.succeeded', createdAt: 1714000000000, region: 'iad1', payload: { deployment: { id: 'dpl_2qwe', url: 'x.vercel.app' }, project: { id: 'prj_1' } } },
    }),
  },
  {
    name: 'Netlify deploy succeeded (JWS signed)',
    provider: 'netlify',
    event: 'deploy.ready',
    input: request({
      headers: {
        'user-agent': 'Netlify',
        'x-webhook-signature': [
          Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url'),
          Buffer.from(JSON.stringify({ iss: 'netlify', sha256: 'b2d1c8f5a4b7e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7' })).toString('base64url'),
          'c2lnbmF0dXJl',
        ].join('.'),
      },
      body: { id: '5ebc34bf4fea0b01f02efa3a', site_id: 'fa4dd95a-994e-4f89-8a7a-2d9e9fc36a32', build_id: '5ebc34bf4fea0b01f02efa38', state: 'ready', name: 'www-site', url: 'https://www.example.com', branch: 'main', context: 'production' },
    }),
  },
  {
    name: 'Typeform form_response',
    provider: 'typeform',
    event: 'form_response',
    input: request({
      headers: { 'user-agent': 'Typeform Webhooks', 'typeform-signature': 'sha256=Gl4tvTuk4Ltbfj9N2QWfF7PxLHBOjSpmlOEuxXoxR2g=' },
      body: { event_id: 'LtWXD3crgy', event_type: 'form_response', form_response: { form_id: 'lT4Z3j', token: 'a3a12ec67a1365927098a606107fac15', submitted_at: '2018-01-18T18:17:02Z', answers: [] } },
    }),
  },
  {
    name: 'Typeform form_response without a secret',
    provider: 'typeform',
    event: 'form_response',
    input: request({
      headers: { 'user-agent': 'Typeform Webhooks' },
      body: { event_id: 'LtWXD3crgy', event_type: 'form_response', form_response: { form_id: 'lT4Z3j', token: 't', submitted_at: '2018-01-18T18:17:02Z', answers: [] } },
    }),
  },
  {
    name: 'Calendly invitee.created',
    provider: 'calendly',
    event: 'invitee.created',
    input: request({
      headers: { 'user-agent': 'Calendly-Webhooks', 'calendly-webhook-signature': 't=1714000000,v1=2a6a5e0e3c0a4b1f8d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b' },
      body: { created_at: '2024-04-24T12:00:00.000000Z', created_by: 'https://api.calendly.com/users/AAAA', event: 'invitee.created', payload: { email: 'a@b.c', name: 'A', status: 'active' } },
    }),
  },
  {
    name: 'Zendesk user event',
    provider: 'zendesk',
    event: 'zen:event-type:user.active_changed',
    input: request({
      headers: {
        'user-agent': 'Zendesk Webhook',
        'x-zendesk-account-id': '123456',
        'x-zendesk-webhook-id': '01F1KRFQ6BG29CNWFR60NK5FNY',
        'x-zendesk-webhook-invocation-id': '8350205582',
        'x-zendesk-webhook-signature': 'EiqWE3SXTPQpPulBV6OSuuGziIishZNc1VwNZYqZrHU=',
        'x-zendesk-webhook-signature-timestamp': '2021-03-25T05:09:27Z',
      },
      body: { type: 'zen:event-type:user.active_changed', account_id: 12514403, id: '2b24ef10-19d4-4740-93cf-8f98ec4776c0', time: '2099-07-04T05:33:18Z', zendesk_event_version: '2022-06-20', subject: 'zen:user:6596848315901', detail: { id: '6596848315901' }, event: { current: false, previous: true } },
    }),
  },
  {
    name: 'Zendesk trigger webhook with a custom body',
    provider: 'zendesk',
    event: '',
    input: request({
      headers: { 'x-zendesk-account-id': '123456', 'x-zendesk-webhook-id': '01F1KRFQ6BG29CNWFR60NK5FNY', 'x-zendesk-webhook-signature': 'abc=', 'x-zendesk-webhook-signature-timestamp': '2021-03-25T05:09:27Z' },
      body: { ticket_id: '42', status: 'open' },
    }),
  },
  {
    name: 'Sentry issue created',
    provider: 'sentry',
    event: 'issue.created',
    input: request({
      headers: { 'user-agent': 'sentry-integration', 'sentry-hook-resource': 'issue', 'sentry-hook-timestamp': '1714000000', 'sentry-hook-signature': '95e5b4c8f54e6a1bdaf98bb5e8d3c5a4f1f2c9de8d7c6b5a4f3e2d1c0b9a8f7e', 'request-id': 'e4874d28-8d6d-4f83-9e2c-b7e4ba6f9e3f' },
      body: { action: 'created', installation: { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' }, data: { issue: { id: '1170820242', title: 'Error' } }, actor: { type: 'application', id: 'sentry', name: 'Sentry' } },
    }),
  },
  {
    name: 'PagerDuty v3 incident.triggered',
    provider: 'pagerduty',
    event: 'incident.triggered',
    input: request({
      headers: { 'user-agent': 'PagerDuty-Webhook/V3.0', 'x-pagerduty-signature': 'v1=3c0f2a4bdf5e,v1=8b7a6c5d4e3f', 'x-webhook-id': '9d5b0d2b', 'x-webhook-subscription': 'PY1OQ8D' },
      body: { event: { id: '01BZ7WIPD4R2V6DVSL1VW4EFE6', event_type: 'incident.triggered', resource_type: 'incident', occurred_at: '2020-10-02T18:45:22.169Z', agent: { type: 'user_reference' }, data: { id: 'PGR0VU2', type: 'incident', title: 'A little bump in the road' } } },
    }),
  },
  {
    name: 'Clerk user.created via Svix',
    provider: 'clerk',
    event: 'user.created',
    input: request({
      headers: { 'user-agent': 'Svix-Webhooks/1.24.0', 'svix-id': 'msg_2gkRSPJ3vVu9Y4ilgxyNGsTeIZO', 'svix-timestamp': '1714000000', 'svix-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
      body: { data: { id: 'user_29w83sxmDNGwOuEthce5gg56FcC', object: 'user', first_name: 'Example', email_addresses: [] }, event_attributes: { http_request: { client_ip: '0.0.0.0', user_agent: 'Mozilla/5.0' } }, instance_id: 'ins_2bw4', object: 'event', timestamp: 1654012591835, type: 'user.created' },
    }),
  },
  {
    name: 'Resend email.delivered via Svix',
    provider: 'resend',
    event: 'email.delivered',
    input: request({
      headers: { 'user-agent': 'Svix-Webhooks/1.24.0', 'svix-id': 'msg_2gkRSPJ3', 'svix-timestamp': '1714000000', 'svix-signature': 'v1,YnJva2Vu v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
      body: { type: 'email.delivered', created_at: '2024-02-22T23:41:12.126Z', data: { created_at: '2024-02-22T23:41:11.894719+00:00', email_id: '56761188-7520-42d8-8898-ff6fc54ce618', from: 'Acme <onboarding@resend.dev>', to: ['delivered@resend.dev'], subject: 'Sending this example' } },
    }),
  },
  {
    name: 'Another Svix customer',
    provider: 'svix',
    event: 'invoice.paid',
    input: request({
      headers: { 'user-agent': 'Svix-Webhooks/1.24.0', 'svix-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'svix-timestamp': '1614265330', 'svix-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' },
      body: { type: 'invoice.paid', data: { id: 'in_1' } },
    }),
  },
  {
    name: 'GoCardless payments confirmed',
    provider: 'gocardless',
    event: 'payments.confirmed',
    input: request({
      headers: { 'user-agent': 'gocardless-webhook-service/1.1', 'webhook-signature': '86b9d76b5d0b6e0a0c5b61c4e34ea6b9b5bea5d0cb2c1e8d93b8ea8a1c7f1a9f', origin: 'https://api.gocardless.com' },
      body: { events: [{ id: 'EV123', created_at: '2014-08-04T12:00:00.000Z', action: 'confirmed', resource_type: 'payments', links: { payment: 'PM123' }, details: { origin: 'gocardless', cause: 'payment_confirmed' } }] },
    }),
  },
  {
    name: 'Standard Webhooks sender',
    provider: 'standard-webhooks',
    event: 'user.created',
    input: request({
      headers: { 'user-agent': 'Replicate-Webhook/1.0', 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', 'webhook-timestamp': '1674087231', 'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==' },
      body: { type: 'user.created', timestamp: '2022-11-03T20:26:10.344522Z', data: { id: '1f81eb52-5198-4599-803e-771906343485' } },
    }),
  },
  {
    name: 'AWS SNS subscription confirmation (text/plain JSON)',
    provider: 'aws-sns',
    event: 'SubscriptionConfirmation',
    input: request({
      headers: {
        'user-agent': 'Amazon Simple Notification Service Agent',
        'x-amz-sns-message-type': 'SubscriptionConfirmation',
        'x-amz-sns-message-id': '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
        'x-amz-sns-topic-arn': 'arn:aws:sns:us-west-2:123456789012:MyTopic',
      },
      body: JSON.stringify({ Type: 'SubscriptionConfirmation', MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b', Token: '2336412f37', TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic', Message: 'You have chosen to subscribe to the topic', SubscribeURL: 'https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription', Timestamp: '2012-04-26T20:45:04.751Z', SignatureVersion: '1', Signature: 'EXAMPLEpH+', SigningCertURL: 'https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem' }),
      contentType: 'text/plain; charset=UTF-8',
    }),
  },
  {
    name: 'Google Cloud Storage notification via Pub/Sub push',
    provider: 'google-pubsub',
    event: 'OBJECT_FINALIZE',
    input: request({
      headers: { 'user-agent': 'APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)', from: 'noreply@google.com' },
      body: { message: { attributes: { bucketId: 'b', eventType: 'OBJECT_FINALIZE', objectId: 'o.txt', payloadFormat: 'JSON_API_V1' }, data: 'eyJraW5kIjoic3RvcmFnZSNvYmplY3QifQ==', messageId: '2070443601311540', message_id: '2070443601311540', publishTime: '2021-02-26T19:13:55.749Z', publish_time: '2021-02-26T19:13:55.749Z' }, subscription: 'projects/myproject/subscriptions/mysubscription' },
    }),
  },
  {
    name: 'Google Pub/Sub push without attributes',
    provider: 'google-pubsub',
    event: '',
    input: request({
      headers: { 'user-agent': 'APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)' },
      body: { message: { data: 'SGVsbG8gQ2xvdWQgUHViL1N1YiEgSGVyZSBpcyBteSBtZXNzYWdlIQ==', messageId: '2070443601311540', publishTime: '2021-02-26T19:13:55.749Z' }, subscription: 'projects/myproject/subscriptions/mysubscription' },
    }),
  },
  {
    name: 'Microsoft Graph validation handshake',
    provider: 'microsoft-graph',
    event: 'validation',
    input: request({ headers: {}, body: '', contentType: 'text/plain; charset=utf-8', query: { validationToken: 'Validation: Testing client application reachability for subscription Request-Id: 3b3f9821' } }),
  },
  {
    name: 'Microsoft Graph change notification',
    provider: 'microsoft-graph',
    event: 'created',
    input: request({
      body: { value: [{ subscriptionId: '76222963-cc7b-42d2-882d-8aaa69cb2ba3', subscriptionExpirationDateTime: '2024-03-20T11:00:00.0000000Z', changeType: 'created', resource: "Users/ddfcd489-628b-40d7-b48b-57002df800e5/messages('AAMk')", clientState: 'secretClientState', tenantId: '84bd8158-6d4d-4958-8b9f-9d6445542f95', resourceData: { '@odata.type': '#Microsoft.Graph.Message', id: 'AAMk' } }] },
    }),
  },
  {
    name: 'Microsoft Graph lifecycle notification',
    provider: 'microsoft-graph',
    event: 'reauthorizationRequired',
    input: request({
      body: { value: [{ subscriptionId: '76222963', subscriptionExpirationDateTime: '2024-03-20T11:00:00.0000000Z', tenantId: '84bd8158', clientState: 's', lifecycleEvent: 'reauthorizationRequired' }] },
    }),
  },
  {
    name: 'Coinbase Commerce charge:confirmed',
    provider: 'coinbase-commerce',
    event: 'charge:confirmed',
    input: request({
      headers: { 'user-agent': 'weipay-webhooks', 'x-cc-webhook-signature': 'f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2' },
      body: { id: 1, scheduled_for: '2017-01-31T20:50:02Z', attempt_number: 1, event: { id: '24934862-d980-46cb-9402-43c81b0cdba6', resource: 'event', type: 'charge:confirmed', api_version: '2018-03-22', created_at: '2017-01-31T20:49:02Z', data: { code: '66BEOV2A' } } },
    }),
  },
  {
    name: 'Razorpay payment.captured',
    provider: 'razorpay',
    event: 'payment.captured',
    input: request({
      headers: { 'user-agent': 'Razorpay-Webhook/v1', 'x-razorpay-signature': 'd2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1', 'x-razorpay-event-id': 'JjBP3yYF5ufq7z' },
      body: { entity: 'event', account_id: 'acc_BFQ7uQEaa7j2z7', event: 'payment.captured', contains: ['payment'], payload: { payment: { entity: { id: 'pay_DESlfW9H8K9uqM', amount: 100 } } }, created_at: 1567674606 },
    }),
  },
  {
    name: 'WooCommerce order.created',
    provider: 'woocommerce',
    event: 'order.created',
    input: request({
      headers: {
        'user-agent': 'WooCommerce/8.8.2 Hookshot (WordPress/6.5.2)',
        'x-wc-webhook-source': 'https://shop.example.com/',
        'x-wc-webhook-topic': 'order.created',
        'x-wc-webhook-resource': 'order',
        'x-wc-webhook-event': 'created',
        'x-wc-webhook-signature': 'ZGM3MDNjNGQ4YjdlZmFlZTA2Y2UzNDQ=',
        'x-wc-webhook-id': '12',
        'x-wc-webhook-delivery-id': 'c3a5',
      },
      body: { id: 727, status: 'processing', currency: 'USD', total: '29.35' },
    }),
  },
  {
    name: 'WooCommerce ping on webhook creation',
    provider: 'woocommerce',
    event: 'ping',
    input: request({
      headers: { 'user-agent': 'WooCommerce/8.8.2 Hookshot (WordPress/6.5.2)', 'x-wc-webhook-source': 'https://shop.example.com/' },
      body: 'webhook_id=12',
      contentType: FORM_CT,
    }),
  },
  {
    name: 'DocuSign Connect envelope-completed (HMAC on)',
    provider: 'docusign',
    event: 'envelope-completed',
    input: request({
      headers: { 'user-agent': 'DocuSign Connect', 'x-docusign-signature-1': 'o4+RcdkBYXOHpZt7uEzbiZnDWUtnF7Y8tIIf4yL+DKo=', 'x-authorization-digest': 'HMACSHA256' },
      body: { event: 'envelope-completed', apiVersion: 'v2.1', uri: '/restapi/v2.1/accounts/1/envelopes/2', retryCount: 0, configurationId: 10418, generatedDateTime: '2024-04-24T12:00:00.0000000Z', data: { accountId: '8a7d', userId: '5d8f', envelopeId: 'e2' } },
    }),
  },
  {
    name: 'DocuSign Connect envelope-sent (HMAC off)',
    provider: 'docusign',
    event: 'envelope-sent',
    input: request({
      headers: { 'user-agent': 'DocuSign Connect' },
      body: { event: 'envelope-sent', apiVersion: 'v2.1', uri: '/restapi/v2.1/accounts/1/envelopes/2', retryCount: 0, configurationId: 10418, generatedDateTime: '2024-04-24T12:00:00.0000000Z', data: { accountId: '8a7d', userId: '5d8f', envelopeId: 'e2' } },
    }),
  },
  {
    name: 'Segment track call',
    provider: 'segment',
    event: 'Order Completed',
    input: request({
      headers: { 'user-agent': 'Segment.io/1.0', 'x-signature': '4e6c1f0b' },
      body: { anonymousId: '507f191e810c19729de860ea', channel: 'server', context: { library: { name: 'analytics.js' } }, event: 'Order Completed', integrations: {}, messageId: 'ajs-f8ca1e4de5024d9430b3928bd8ac6b96', properties: { revenue: 12 }, receivedAt: '2015-12-12T19:11:01.266Z', sentAt: '2015-12-12T19:11:01.169Z', timestamp: '2015-12-12T19:11:01.249Z', type: 'track', userId: '97980cfea0067', version: 2 },
    }),
  },
  {
    name: 'Segment identify call',
    provider: 'segment',
    event: 'identify',
    input: request({
      body: { anonymousId: '507f191e810c19729de860ea', messageId: '022bb90c-bbac-11e4-8dfc-aa07a5b093db', receivedAt: '2015-02-23T22:28:55.387Z', sentAt: '2015-02-23T22:28:55.111Z', traits: { name: 'Peter Gibbons' }, type: 'identify', userId: '97980cfea0067', version: '1.1' },
    }),
  },
  {
    name: 'Okta event hook verification',
    provider: 'okta',
    event: 'verification',
    input: request({ method: 'GET', headers: { 'user-agent': 'Okta Hooks', 'x-okta-verification-challenge': 'svsrd9JU0vKgjkrhwyZrF7Bxcvm2WvnZkd75VJcx' } }),
  },
  {
    name: 'Okta event hook delivery',
    provider: 'okta',
    event: 'user.session.start',
    input: request({
      headers: { 'user-agent': 'Okta Hooks' },
      body: { eventType: 'com.okta.event_hook', eventTypeVersion: '1.0', cloudEventsVersion: '0.1', source: 'https://dev-1.okta.com/api/v1/eventHooks/whoql0HfiLGPWc8Jx0g3', eventId: 'b5a188b9-5ece-4636-b041-482ffda96311', data: { events: [{ uuid: '4bc2cc9e', published: '2019-03-27T16:59:43.183Z', eventType: 'user.session.start', displayMessage: 'User login to Okta' }] }, eventTime: '2019-03-27T16:59:53.032Z', contentType: 'application/json' },
    }),
  },
  {
    name: 'WhatsApp Cloud API message via Meta',
    provider: 'meta',
    event: 'whatsapp_business_account.messages',
    input: request({
      headers: { 'user-agent': 'facebookexternalua', 'x-hub-signature': 'sha1=a1', 'x-hub-signature-256': 'sha256=b2' },
      body: { object: 'whatsapp_business_account', entry: [{ id: '102290129340398', changes: [{ value: { messaging_product: 'whatsapp', metadata: { phone_number_id: '106540352242922' }, messages: [{ from: '16315551234', id: 'wamid.ABGG', type: 'text', text: { body: 'hi' } }] }, field: 'messages' }] }] },
    }),
  },
  {
    name: 'Messenger page message via Meta',
    provider: 'meta',
    event: 'page',
    input: request({
      headers: { 'x-hub-signature-256': 'sha256=b2' },
      body: { object: 'page', entry: [{ id: '1', time: 1458692752478, messaging: [{ sender: { id: '2' }, recipient: { id: '1' }, message: { mid: 'm', text: 'hello' } }] }] },
    }),
  },
  {
    name: 'Mandrill message events',
    provider: 'mandrill',
    event: 'send',
    input: request({
      headers: { 'user-agent': 'Mandrill-Webhook/1.0', 'x-mandrill-signature': 'uHqyTkUVyZTUNfRpx2tHv4Zy6Qw=' },
      body: form({ mandrill_events: JSON.stringify([{ event: 'send', msg: { ts: 1365109999, subject: 'This an example webhook message', email: 'example.webhook@mandrillapp.com', state: 'sent' }, _id: 'exampleaaaaaaaaaaaaaaaaaaaaaaaaa1', ts: 1429118513 }]) }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Mailchimp subscribe',
    provider: 'mailchimp',
    event: 'subscribe',
    input: request({
      headers: { 'user-agent': 'MailChimp' },
      body: 'type=subscribe&fired_at=2009-03-26+21%3A35%3A57&data%5Bid%5D=8a25ff1d98&data%5Blist_id%5D=a6b5da1054&data%5Bemail%5D=api%40mailchimp.com&data%5Bemail_type%5D=html&data%5Bmerges%5D%5BEMAIL%5D=api%40mailchimp.com&data%5Bip_opt%5D=10.20.10.30',
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Braintree notification',
    provider: 'braintree',
    event: '',
    input: request({
      headers: { 'user-agent': 'Braintree' },
      body: form({ bt_signature: 'abc123|def456', bt_payload: 'PG5vdGlmaWNhdGlvbj48a2luZD5jaGVjazwva2luZD48L25vdGlmaWNhdGlvbj4=\n' }),
      contentType: FORM_CT,
    }),
  },
  {
    name: 'Lemon Squeezy order_created',
    provider: 'lemon-squeezy',
    event: 'order_created',
    input: request({
      headers: { 'user-agent': 'LemonSqueezy-Hookshot', 'x-event-name': 'order_created', 'x-signature': '1d1c5f93a5f2d0fd6aab9d5aa9b6c6c7a4c5d6e7f8091a2b3c4d5e6f708192a3' },
      body: { meta: { event_name: 'order_created', custom_data: { customer_id: 25 } }, data: { type: 'orders', id: '1', attributes: { status: 'paid' } } },
      contentType: 'application/vnd.api+json',
    }),
  },
  {
    name: 'Telegram message update',
    provider: 'telegram',
    event: 'message',
    input: request({
      headers: { 'x-telegram-bot-api-secret-token': 's3cr3t' },
      body: { update_id: 10000, message: { date: 1441645532, chat: { id: 1111111, type: 'private' }, message_id: 1365, from: { id: 1111111, first_name: 'Test' }, text: '/start' } },
    }),
  },
  {
    name: 'Telegram callback query without a secret token',
    provider: 'telegram',
    event: 'callback_query',
    input: request({
      body: { update_id: 10001, callback_query: { id: '4382bfdwdsb323b2d9', from: { id: 1111111 }, data: 'Data from button callback', chat_instance: '2' } },
    }),
  },
  {
    name: 'Mux video.asset.ready',
    provider: 'mux',
    event: 'video.asset.ready',
    input: request({
      headers: { 'user-agent': 'Mux Webhooks', 'mux-signature': 't=1565220904,v1=20c75c1180c701ee8a796e81507cfd5c932fc17cf63a4a55566fd38da3a2d3d2' },
      body: { type: 'video.asset.ready', object: { type: 'asset', id: '0201p02fGKPE7MrbC269XRD7LpcHhrmbu0002' }, id: '3a56ac3d-33da-4366-855b-f592d898409d', environment: { name: 'Demo', id: 'j0863n' }, data: { status: 'ready' }, created_at: '2024-04-24T12:00:00.000000Z', attempts: [] },
    }),
  },
  {
    name: 'Trello card updated',
    provider: 'trello',
    event: 'updateCard',
    input: request({
      headers: { 'user-agent': 'Apache-HttpClient', 'x-trello-webhook': 'kLe2sHrQ5UGv2Y5gJ1Z1Qp9PKk0=' },
      body: { model: { id: '4d5ea62fd76aa1136000000c', name: 'Board' }, action: { id: '51f9424bcd6e040f3c002412', type: 'updateCard', date: '2013-07-31T16:58:51.949Z', data: { card: { id: 'c1' } } }, webhook: { id: 'w1' } },
    }),
  },
  {
    name: 'Asana handshake',
    provider: 'asana',
    event: 'handshake',
    input: request({ headers: { 'x-hook-secret': 'b537207f20cbfa02357cf448134da559e8bd39d61597dcd5631b8012eae53e81' }, body: '', contentType: '' }),
  },
  {
    name: 'Asana task changed',
    provider: 'asana',
    event: 'task.changed',
    input: request({
      headers: { 'user-agent': 'Asana', 'x-hook-signature': '4bb6e84e1b0e3d8c1b5d2d2e8c6f1a0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b' },
      body: { events: [{ user: { gid: '1', resource_type: 'user' }, created_at: '2018-11-29T23:14:16.347Z', action: 'changed', resource: { gid: '12', resource_type: 'task' }, parent: null, change: { field: 'name', action: 'changed' } }] },
    }),
  },
  {
    name: 'Asana heartbeat',
    provider: 'asana',
    event: 'heartbeat',
    input: request({ headers: { 'x-hook-signature': 'ab' }, body: { events: [] } }),
  },
  {
    name: 'Dropbox list_folder notification',
    provider: 'dropbox',
    event: 'list_folder',
    input: request({
      headers: { 'user-agent': 'DropboxWebhooks/1.0', 'x-dropbox-signature': '1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c' },
      body: { list_folder: { accounts: ['dbid:AAH4f99T0taONIb-OurWxbNQ6ywGRopQngc'] }, delta: { users: [12345678] } },
    }),
  },
  {
    name: 'Box file uploaded',
    provider: 'box',
    event: 'FILE.UPLOADED',
    input: request({
      headers: { 'user-agent': 'Box-WH-Client/0.1', 'box-delivery-id': 'f96bb54b-ee16-4fc5-aa65-8c2d9e5b546f', 'box-delivery-timestamp': '2020-01-01T00:00:00-07:00', 'box-signature-algorithm': 'HmacSHA256', 'box-signature-primary': '4KvFa5/unRL8aaqOlnbInTwkOmieZkn1ZVzsAJuRipE=', 'box-signature-secondary': 'yxxwBNk7tFyQSy95/VNKAf1o+j8WMPJuo/KcFc7OS0Q=', 'box-signature-version': '1' },
      body: { type: 'webhook_event', id: 'eb0c4e06-751f-442f-a3de-51ec1edcb46b', created_at: '2016-11-18T21:59:10-08:00', trigger: 'FILE.UPLOADED', webhook: { id: '1234567', type: 'webhook' }, created_by: { type: 'user', id: '1' }, source: { id: '123456789', type: 'file', name: 'file.txt' } },
    }),
  },
  {
    name: 'Contentful entry published',
    provider: 'contentful',
    event: 'ContentManagement.Entry.publish',
    input: request({
      headers: { 'user-agent': 'Contentful-Webhooks/1.0', 'x-contentful-topic': 'ContentManagement.Entry.publish', 'x-contentful-webhook-name': 'Deploy', 'x-contentful-crn': 'crn:contentful:::content:spaces/abc/entries/xyz' },
      body: { sys: { type: 'Entry', id: 'xyz', space: { sys: { id: 'abc' } } }, fields: {} },
      contentType: 'application/vnd.contentful.management.v1+json',
    }),
  },
  {
    name: 'Plaid transactions sync',
    provider: 'plaid',
    event: 'TRANSACTIONS.SYNC_UPDATES_AVAILABLE',
    input: request({
      headers: { 'user-agent': 'Plaid Webhook Sender', 'plaid-verification': 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjZjNTUxNmUxIiwidHlwIjoiSldUIn0.eyJpYXQiOjE3MTQwMDAwMDB9.c2ln' },
      body: { webhook_type: 'TRANSACTIONS', webhook_code: 'SYNC_UPDATES_AVAILABLE', item_id: 'wz666MBjYWTp2PDzzggYhM6oWWmBb', initial_update_complete: true, historical_update_complete: false, environment: 'production' },
    }),
  },
  {
    name: 'Adyen AUTHORISATION notification',
    provider: 'adyen',
    event: 'AUTHORISATION',
    input: request({
      headers: { 'user-agent': 'Adyen HttpClient 1.0' },
      body: { live: 'false', notificationItems: [{ NotificationRequestItem: { additionalData: { hmacSignature: 'coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=' }, amount: { currency: 'EUR', value: 1000 }, eventCode: 'AUTHORISATION', eventDate: '2024-04-24T12:00:00+02:00', merchantAccountCode: 'YOUR_MERCHANT_ACCOUNT', merchantReference: 'order-1', pspReference: '7914073381342284', success: 'true' } }] },
    }),
  },
  {
    name: 'CircleCI workflow-completed',
    provider: 'circleci',
    event: 'workflow-completed',
    input: request({
      headers: { 'user-agent': 'CircleCI-Webhook/1.0', 'circleci-event-type': 'workflow-completed', 'circleci-signature': 'v1=1bd5e6b5e25fdd4e3c3e1d39c4f3e0e3c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6' },
      body: { type: 'workflow-completed', id: '3888f21b-eaa7-38e3-8f3d-75a63bba8895', happened_at: '2021-09-01T22:49:34.317Z', webhook: { id: 'cf8c4fdd', name: 'Sample' }, workflow: { status: 'success', name: 'build' } },
    }),
  },
  {
    name: 'Checkout.com payment_approved',
    provider: 'checkout-com',
    event: 'payment_approved',
    input: request({
      headers: { 'user-agent': 'Checkout.com-Webhooks', 'cko-signature': '7d1c5e1d0b2f4a5d8c7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c', authorization: 'sk_test_key' },
      body: { id: 'evt_az5sblvku4ge3dwpztvyizgcau', type: 'payment_approved', version: '1.0.33', created_on: '2024-04-24T12:00:00Z', data: { id: 'pay_mbabizu24mvu3mela5njyhpit4', amount: 6540 }, _links: { self: { href: 'https://api.checkout.com/workflows/events/evt_az5sblvku4ge3dwpztvyizgcau' } } },
    }),
  },
  {
    name: 'Figma FILE_UPDATE',
    provider: 'figma',
    event: 'FILE_UPDATE',
    input: request({
      headers: { 'user-agent': 'Figma' },
      body: { event_type: 'FILE_UPDATE', file_key: 'zE7lUQ6s4yI6vVq5xnKtR7', file_name: 'Design', passcode: 'secret', protocol_version: '2', retries: 0, timestamp: '2024-04-24T12:00:00Z', webhook_id: '22' },
    }),
  },
  {
    name: 'Heroku release update',
    provider: 'heroku',
    event: 'api:release.update',
    input: request({
      headers: { 'user-agent': 'Heroku-Webhooks', 'heroku-webhook-hmac-sha256': 'lKRr+dGgd5CUUtq5BNXvJ1/Xt4Uc1hQshg2c5NaSUao=', 'heroku-webhook-id': '99d1e7e8' },
      body: { id: 'b1b4c8c2', data: { version: 12, status: 'succeeded' }, actor: { email: 'a@b.c' }, action: 'update', resource: 'release', version: 'application/vnd.heroku+json; version=3', published_at: '2024-04-24T12:00:00Z', webhook_metadata: { attempt: { id: 'a' }, delivery: { id: 'd' }, event: { id: 'e', include: 'api:release' }, webhook: { id: 'w' } } },
    }),
  },
];
