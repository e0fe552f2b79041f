/**
 * Known webhook senders, one entry each. Order is priority: where two entries can see the same
 * request, the more specific one comes first (Gitea before GitHub, because Gitea also sends
 * X-GitHub-Event; GitLab and the Svix customers before the generic Standard Webhooks entries).
 * docs/providers.md explains each fingerprint and where it was checked.
 *
 * Rules of thumb for adding an entry:
 * - Anchor on a header only the sender uses. Shared names (x-hub-signature, x-signature,
 *   webhook-signature, user-agent) are never enough on their own.
 * - Body-only fingerprints need a distinctive literal (`json`/`form` anchor) and conditions that
 *   pin the shape; a generic `type` field is not a fingerprint.
 */
import type { Condition, ProviderEntry } from './types';

const either = (...conditions: Condition[]): Condition => ({ any: conditions });

export const PROVIDERS: readonly ProviderEntry[] = [
  {
    id: 'stripe',
    fingerprints: [
      {
        on: [{ header: 'stripe-signature' }],
        when: [{ header: 'stripe-signature', pattern: /(?:^|,)\s*t=\d+/ }],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  // Forgejo, Gitea and Gogs also send X-GitHub-Event and X-GitHub-Delivery for compatibility, so
  // they must be seen before GitHub.
  {
    id: 'forgejo',
    fingerprints: [
      {
        on: [{ header: 'x-forgejo-event' }],
        event: [{ parts: [{ header: 'x-forgejo-event' }, { json: 'action', optional: true }] }],
      },
    ],
  },
  {
    id: 'gitea',
    fingerprints: [
      {
        on: [{ header: 'x-gitea-event' }],
        event: [{ parts: [{ header: 'x-gitea-event' }, { json: 'action', optional: true }] }],
      },
    ],
  },
  {
    id: 'gogs',
    fingerprints: [
      {
        on: [{ header: 'x-gogs-event' }],
        event: [{ parts: [{ header: 'x-gogs-event' }, { json: 'action', optional: true }] }],
      },
    ],
  },
  {
    id: 'github',
    fingerprints: [
      {
        on: [{ header: 'x-github-event' }],
        when: [
          { header: 'x-github-delivery' },
          { header: 'x-gitea-event', absent: true },
          { header: 'x-gogs-event', absent: true },
          { header: 'x-forgejo-event', absent: true },
        ],
        event: [{ parts: [{ header: 'x-github-event' }, { json: 'action', optional: true }] }],
      },
    ],
  },
  // GitLab's optional signing token uses the Standard Webhooks headers; this entry outranks them.
  {
    id: 'gitlab',
    fingerprints: [
      {
        on: [{ header: 'x-gitlab-event' }],
        event: [
          { parts: [{ json: 'object_kind' }, { json: 'object_attributes.action', optional: true }] },
          { parts: [{ json: 'event_name' }] },
          { parts: [{ header: 'x-gitlab-event' }] },
        ],
      },
    ],
  },
  {
    id: 'bitbucket',
    fingerprints: [
      {
        on: [{ header: 'x-event-key' }],
        when: [
          { header: 'x-event-key', pattern: /^[a-z]+:[a-z_:]+$/ },
          either(
            { header: 'x-request-uuid' },
            { header: 'x-hook-uuid' },
            { header: 'x-request-id' },
            { header: 'user-agent', prefix: 'Bitbucket' },
          ),
        ],
        event: [{ parts: [{ header: 'x-event-key' }] }],
      },
    ],
  },
  {
    id: 'shopify',
    fingerprints: [
      {
        on: [{ header: 'x-shopify-topic' }],
        when: [either({ header: 'x-shopify-hmac-sha256' }, { header: 'x-shopify-shop-domain' })],
        event: [{ parts: [{ header: 'x-shopify-topic' }] }],
      },
    ],
  },
  {
    id: 'slack',
    fingerprints: [
      {
        on: [{ header: 'x-slack-signature' }],
        when: [{ header: 'x-slack-request-timestamp', pattern: /^\d+$/ }],
        event: [
          { when: [{ json: 'type', equals: 'event_callback' }], parts: [{ json: 'event.type' }] },
          { parts: [{ json: 'type' }] },
          { parts: [{ formJson: 'payload', path: 'type' }] },
          { parts: [{ form: 'command' }] },
        ],
      },
    ],
  },
  {
    id: 'sendgrid',
    fingerprints: [
      {
        on: [{ header: 'x-twilio-email-event-webhook-signature' }],
        event: [{ parts: [{ json: '0.event' }] }],
      },
      {
        on: [{ json: '"sg_event_id"' }],
        when: [{ json: '0.sg_event_id', type: 'string' }, { json: '0.event', type: 'string' }],
        event: [{ parts: [{ json: '0.event' }] }],
      },
    ],
  },
  {
    id: 'twilio',
    fingerprints: [
      {
        on: [{ header: 'x-twilio-signature' }],
        event: [
          { parts: [{ form: 'EventType' }] },
          { parts: [{ literal: 'message' }, { form: 'MessageStatus' }] },
          { parts: [{ literal: 'sms' }, { form: 'SmsStatus' }] },
          { parts: [{ literal: 'call' }, { form: 'CallStatus' }] },
          { parts: [{ json: '0.type' }] },
        ],
      },
    ],
  },
  {
    id: 'mailgun',
    fingerprints: [
      {
        on: [{ json: /"event-data"\s*:\s*\{/ }],
        when: [
          { json: 'signature.token', type: 'string' },
          { json: 'signature.signature', type: 'string' },
          { json: 'event-data.event', type: 'string' },
        ],
        event: [{ parts: [{ json: 'event-data.event' }] }],
      },
    ],
  },
  {
    id: 'postmark',
    fingerprints: [
      {
        on: [{ json: /"RecordType"\s*:\s*"(?:Delivery|Bounce|SpamComplaint|Open|Click|SubscriptionChange)"/ }],
        when: [
          {
            json: 'RecordType',
            oneOf: ['Delivery', 'Bounce', 'SpamComplaint', 'Open', 'Click', 'SubscriptionChange'],
          },
          { json: 'MessageStream', type: 'string' },
        ],
        event: [{ parts: [{ json: 'RecordType' }] }],
      },
      {
        on: [{ json: /"FromFull"\s*:\s*\{/ }],
        when: [
          { json: 'FromFull', type: 'object' },
          { json: 'MessageID', type: 'string' },
          { json: 'MessageStream', type: 'string' },
        ],
        event: [{ parts: [{ literal: 'Inbound' }] }],
      },
    ],
  },
  {
    id: 'paypal',
    fingerprints: [
      {
        on: [{ header: 'paypal-transmission-id' }],
        when: [{ header: 'paypal-transmission-sig' }],
        event: [{ parts: [{ json: 'event_type' }] }],
      },
    ],
  },
  {
    id: 'square',
    fingerprints: [
      {
        on: [{ header: 'x-square-hmacsha256-signature' }, { header: 'x-square-signature' }],
        when: [{ json: 'merchant_id', type: 'string' }, { json: 'event_id', type: 'string' }],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'paddle',
    fingerprints: [
      {
        on: [{ header: 'paddle-signature' }],
        when: [{ header: 'paddle-signature', pattern: /(?:^|;)ts=\d+/ }],
        event: [{ parts: [{ json: 'event_type' }] }],
      },
      // Paddle Classic: form body signed with an RSA key in p_signature.
      {
        on: [{ form: 'p_signature=' }],
        when: [{ form: 'alert_name' }, { form: 'p_signature' }],
        event: [{ parts: [{ form: 'alert_name' }] }],
      },
    ],
  },
  {
    id: 'linear',
    fingerprints: [
      {
        on: [{ header: 'linear-signature' }, { header: 'linear-delivery' }],
        when: [{ header: 'linear-event' }],
        event: [
          { parts: [{ header: 'linear-event' }, { json: 'action', optional: true }] },
          { parts: [{ json: 'type' }, { json: 'action', optional: true }] },
        ],
      },
    ],
  },
  {
    id: 'discord',
    fingerprints: [
      {
        on: [{ header: 'x-signature-ed25519' }],
        when: [{ header: 'x-signature-timestamp' }],
        event: [
          // Webhook events: {version, application_id, type: 0|1, event: {type}}.
          { parts: [{ json: 'event.type' }] },
          {
            when: [{ json: 'token', absent: true }],
            parts: [{ json: 'type', map: { '0': 'PING' } }],
          },
          // Interactions carry a token and a numeric interaction type.
          {
            parts: [
              {
                json: 'type',
                map: {
                  '1': 'PING',
                  '2': 'APPLICATION_COMMAND',
                  '3': 'MESSAGE_COMPONENT',
                  '4': 'APPLICATION_COMMAND_AUTOCOMPLETE',
                  '5': 'MODAL_SUBMIT',
                },
              },
            ],
          },
        ],
      },
    ],
  },
  {
    id: 'zoom',
    fingerprints: [
      {
        on: [{ header: 'x-zm-signature' }, { header: 'x-zm-request-timestamp' }],
        event: [{ parts: [{ json: 'event' }] }],
      },
    ],
  },
  {
    id: 'twitch',
    fingerprints: [
      {
        on: [{ header: 'twitch-eventsub-message-id' }],
        when: [{ header: 'twitch-eventsub-message-type' }],
        event: [
          {
            when: [{ header: 'twitch-eventsub-message-type', equals: 'notification' }],
            parts: [{ header: 'twitch-eventsub-subscription-type' }],
          },
          { parts: [{ header: 'twitch-eventsub-message-type' }] },
        ],
      },
    ],
  },
  {
    id: 'intercom',
    fingerprints: [
      {
        on: [{ json: /"type"\s*:\s*"notification_event"/ }],
        when: [
          { json: 'type', equals: 'notification_event' },
          { json: 'topic', type: 'string' },
          { json: 'app_id', type: 'string' },
        ],
        event: [{ parts: [{ json: 'topic' }] }],
      },
    ],
  },
  {
    id: 'hubspot',
    fingerprints: [
      {
        on: [
          { header: 'x-hubspot-signature-v3' },
          { header: 'x-hubspot-signature' },
          { header: 'x-hubspot-request-timestamp' },
        ],
        event: [{ parts: [{ json: '0.subscriptionType' }] }, { parts: [{ json: '0.eventType' }] }],
      },
    ],
  },
  {
    id: 'jira',
    fingerprints: [
      {
        on: [{ header: 'x-atlassian-webhook-identifier' }],
        when: [{ json: 'webhookEvent', type: 'string' }],
        event: [{ parts: [{ json: 'webhookEvent' }] }],
      },
      // Jira Server / Data Center sends no Atlassian header.
      {
        on: [{ json: /"webhookEvent"\s*:\s*"(?:jira:|comment_|worklog_|issuelink_|sprint_|board_|project_|user_|version_|issue_property_)/ }],
        when: [
          { json: 'webhookEvent', pattern: /^(?:jira:|comment_|worklog_|issuelink_|sprint_|board_|project_|user_|version_|issue_property_)/ },
          { json: 'timestamp', type: 'number' },
        ],
        event: [{ parts: [{ json: 'webhookEvent' }] }],
      },
    ],
  },
  {
    id: 'vercel',
    fingerprints: [
      {
        on: [{ header: 'x-vercel-signature' }],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'netlify',
    fingerprints: [
      {
        on: [{ header: 'x-webhook-signature' }],
        when: [{ jwt: 'x-webhook-signature', claim: 'iss', equals: 'netlify' }],
        event: [{ parts: [{ literal: 'deploy' }, { json: 'state' }] }],
      },
    ],
  },
  {
    id: 'typeform',
    fingerprints: [
      {
        on: [{ header: 'typeform-signature' }],
        event: [{ parts: [{ json: 'event_type' }] }],
      },
      {
        on: [{ json: /"event_type"\s*:\s*"form_response"/ }],
        when: [{ json: 'event_type', equals: 'form_response' }, { json: 'form_response.form_id', type: 'string' }],
        event: [{ parts: [{ json: 'event_type' }] }],
      },
    ],
  },
  {
    id: 'calendly',
    fingerprints: [
      {
        on: [{ header: 'calendly-webhook-signature' }],
        event: [{ parts: [{ json: 'event' }] }],
      },
    ],
  },
  {
    id: 'zendesk',
    fingerprints: [
      {
        on: [{ header: 'x-zendesk-webhook-id' }, { header: 'x-zendesk-webhook-signature' }],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'sentry',
    fingerprints: [
      {
        on: [{ header: 'sentry-hook-resource' }],
        event: [{ parts: [{ header: 'sentry-hook-resource' }, { json: 'action', optional: true }] }],
      },
    ],
  },
  {
    id: 'pagerduty',
    fingerprints: [
      {
        on: [{ header: 'x-pagerduty-signature' }],
        event: [{ parts: [{ json: 'event.event_type' }] }, { parts: [{ json: 'messages.0.event' }] }],
      },
    ],
  },
  // Svix delivers for many products; two are recognisable by their payloads.
  {
    id: 'clerk',
    fingerprints: [
      {
        on: [{ header: 'svix-id' }],
        when: [
          { header: 'svix-signature' },
          { json: 'object', equals: 'event' },
          { json: 'type', type: 'string' },
          either({ json: 'instance_id', prefix: 'ins_' }, { json: 'data.id', pattern: /^(?:user|sess|org|orginv|orgmem|sms|email|role|perm|waitlist)_/ }),
        ],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'resend',
    fingerprints: [
      {
        on: [{ header: 'svix-id' }],
        when: [
          { header: 'svix-signature' },
          { json: 'type', pattern: /^(?:email|contact|domain)\./ },
          { json: 'created_at', type: 'string' },
          either({ json: 'data.email_id', type: 'string' }, { json: 'type', pattern: /^(?:contact|domain)\./ }),
        ],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'svix',
    fingerprints: [
      {
        on: [{ header: 'svix-id' }],
        when: [{ header: 'svix-timestamp', pattern: /^\d+$/ }, { header: 'svix-signature', pattern: /(?:^|\s)v1a?,/ }],
        event: [{ parts: [{ json: 'type' }] }, { parts: [{ json: 'eventType' }] }],
      },
    ],
  },
  // GoCardless names its hex signature header Webhook-Signature; unlike Standard Webhooks it sends
  // no webhook-id and no "v1," prefix.
  {
    id: 'gocardless',
    fingerprints: [
      {
        on: [{ header: 'webhook-signature' }],
        when: [
          { header: 'webhook-signature', pattern: /^[0-9a-f]{64}$/ },
          { json: 'events.0.resource_type', type: 'string' },
        ],
        event: [{ parts: [{ json: 'events.0.resource_type' }, { json: 'events.0.action' }] }],
      },
    ],
  },
  {
    id: 'standard-webhooks',
    fingerprints: [
      {
        on: [{ header: 'webhook-id' }],
        when: [
          { header: 'webhook-timestamp', pattern: /^\d+$/ },
          { header: 'webhook-signature', pattern: /(?:^|\s)v1a?,/ },
        ],
        event: [{ parts: [{ json: 'type' }] }, { parts: [{ json: 'eventType' }] }],
      },
    ],
  },
  {
    id: 'aws-sns',
    fingerprints: [
      {
        on: [{ header: 'x-amz-sns-message-type' }],
        when: [either({ header: 'x-amz-sns-topic-arn' }, { header: 'x-amz-sns-message-id' })],
        event: [{ parts: [{ header: 'x-amz-sns-message-type' }] }],
      },
    ],
  },
  {
    id: 'google-pubsub',
    fingerprints: [
      {
        on: [{ json: /"subscription"\s*:\s*"projects\// }],
        when: [
          { json: 'subscription', pattern: /^projects\/[^/]+\/subscriptions\/./ },
          { json: 'message', type: 'object' },
          either({ json: 'message.messageId', type: 'string' }, { json: 'message.message_id', type: 'string' }),
        ],
        event: [
          { parts: [{ json: 'message.attributes.eventType' }] },
          { parts: [{ json: 'message.attributes.type' }] },
        ],
      },
    ],
  },
  {
    id: 'microsoft-graph',
    fingerprints: [
      {
        on: [{ query: 'validationToken' }],
        event: [{ parts: [{ literal: 'validation' }] }],
      },
      {
        on: [{ json: '"subscriptionExpirationDateTime"' }],
        when: [{ json: 'value.0.subscriptionId', type: 'string' }],
        event: [
          { parts: [{ json: 'value.0.lifecycleEvent' }] },
          { parts: [{ json: 'value.0.changeType' }] },
        ],
      },
    ],
  },
  {
    id: 'coinbase-commerce',
    fingerprints: [
      {
        on: [{ header: 'x-cc-webhook-signature' }],
        event: [{ parts: [{ json: 'event.type' }] }],
      },
    ],
  },
  {
    id: 'razorpay',
    fingerprints: [
      {
        on: [{ header: 'x-razorpay-signature' }, { header: 'x-razorpay-event-id' }],
        event: [{ parts: [{ json: 'event' }] }],
      },
    ],
  },
  {
    id: 'woocommerce',
    fingerprints: [
      {
        on: [{ header: 'x-wc-webhook-topic' }, { header: 'x-wc-webhook-source' }],
        event: [
          { parts: [{ header: 'x-wc-webhook-topic' }] },
          { when: [{ form: 'webhook_id' }], parts: [{ literal: 'ping' }] },
        ],
      },
    ],
  },
  {
    id: 'docusign',
    fingerprints: [
      {
        on: [{ header: 'x-docusign-signature-1' }],
        event: [{ parts: [{ json: 'event' }] }],
      },
      {
        on: [{ json: /"event"\s*:\s*"(?:envelope|recipient|template|click)-/ }],
        when: [
          { json: 'event', pattern: /^(?:envelope|recipient|template|click)-/ },
          { json: 'data.accountId', type: 'string' },
        ],
        event: [{ parts: [{ json: 'event' }] }],
      },
    ],
  },
  {
    id: 'segment',
    fingerprints: [
      {
        on: [{ json: /"type"\s*:\s*"(?:track|identify|page|screen|group|alias)"/ }],
        when: [
          { json: 'type', oneOf: ['track', 'identify', 'page', 'screen', 'group', 'alias'] },
          { json: 'messageId', type: 'string' },
          either({ json: 'anonymousId' }, { json: 'userId' }),
          either({ json: 'receivedAt', type: 'string' }, { json: 'sentAt', type: 'string' }),
        ],
        event: [
          { when: [{ json: 'type', equals: 'track' }], parts: [{ json: 'event' }] },
          { parts: [{ json: 'type' }] },
        ],
      },
    ],
  },
  {
    id: 'okta',
    fingerprints: [
      {
        on: [{ header: 'x-okta-verification-challenge' }],
        event: [{ parts: [{ literal: 'verification' }] }],
      },
      {
        on: [{ json: /"eventType"\s*:\s*"com\.okta\./ }],
        when: [{ json: 'eventType', prefix: 'com.okta.' }, { json: 'source', type: 'string' }],
        event: [{ parts: [{ json: 'data.events.0.eventType' }] }, { parts: [{ json: 'eventType' }] }],
      },
    ],
  },
  {
    id: 'meta',
    fingerprints: [
      {
        on: [{ header: 'x-hub-signature-256' }, { header: 'x-hub-signature' }],
        when: [
          {
            json: 'object',
            oneOf: ['page', 'instagram', 'whatsapp_business_account', 'user', 'permissions', 'application', 'payments'],
          },
          { json: 'entry.0.id', type: 'string' },
          either({ json: 'entry.0.changes', type: 'array' }, { json: 'entry.0.messaging', type: 'array' }),
          // Meta signs every delivery with the app secret.
          either({ header: 'x-hub-signature-256' }, { header: 'x-hub-signature' }),
        ],
        event: [{ parts: [{ json: 'object' }, { json: 'entry.0.changes.0.field', optional: true }] }],
      },
    ],
  },
  {
    id: 'mandrill',
    fingerprints: [
      {
        on: [{ header: 'x-mandrill-signature' }, { form: 'mandrill_events=' }],
        when: [{ form: 'mandrill_events' }],
        event: [{ parts: [{ formJson: 'mandrill_events', path: '0.event' }] }],
      },
    ],
  },
  {
    id: 'mailchimp',
    fingerprints: [
      {
        on: [{ form: 'fired_at=' }],
        when: [
          { form: 'type', oneOf: ['subscribe', 'unsubscribe', 'profile', 'upemail', 'cleaned', 'campaign'] },
          { form: 'fired_at' },
        ],
        event: [{ parts: [{ form: 'type' }] }],
      },
    ],
  },
  {
    id: 'braintree',
    fingerprints: [
      {
        on: [{ form: 'bt_signature=' }],
        when: [{ form: 'bt_signature' }, { form: 'bt_payload' }],
        event: [],
      },
    ],
  },
  {
    id: 'lemon-squeezy',
    fingerprints: [
      {
        on: [{ header: 'x-event-name' }],
        when: [{ header: 'x-signature' }, { json: 'meta.event_name', type: 'string' }],
        event: [{ parts: [{ header: 'x-event-name' }] }],
      },
    ],
  },
  {
    id: 'telegram',
    fingerprints: [
      {
        on: [{ header: 'x-telegram-bot-api-secret-token' }, { json: /"update_id"\s*:\s*\d/ }],
        when: [{ json: 'update_id', type: 'number' }],
        event: [
          {
            parts: [
              {
                firstKeyOf: [
                  'message',
                  'edited_message',
                  'channel_post',
                  'edited_channel_post',
                  'business_message',
                  'message_reaction',
                  'inline_query',
                  'chosen_inline_result',
                  'callback_query',
                  'shipping_query',
                  'pre_checkout_query',
                  'poll',
                  'poll_answer',
                  'my_chat_member',
                  'chat_member',
                  'chat_join_request',
                ],
              },
            ],
          },
        ],
      },
    ],
  },
  {
    id: 'mux',
    fingerprints: [
      {
        on: [{ header: 'mux-signature' }],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'trello',
    fingerprints: [
      {
        on: [{ header: 'x-trello-webhook' }],
        event: [{ parts: [{ json: 'action.type' }] }],
      },
    ],
  },
  {
    id: 'asana',
    fingerprints: [
      {
        on: [{ header: 'x-hook-signature' }, { header: 'x-hook-secret' }],
        event: [
          { when: [{ header: 'x-hook-secret' }], parts: [{ literal: 'handshake' }] },
          { parts: [{ json: 'events.0.resource.resource_type' }, { json: 'events.0.action' }] },
          {
            when: [{ json: 'events', type: 'array' }, { json: 'events.0', absent: true }],
            parts: [{ literal: 'heartbeat' }],
          },
        ],
      },
    ],
  },
  {
    id: 'dropbox',
    fingerprints: [
      {
        on: [{ header: 'x-dropbox-signature' }],
        event: [{ when: [{ json: 'list_folder', type: 'object' }], parts: [{ literal: 'list_folder' }] }],
      },
    ],
  },
  {
    id: 'box',
    fingerprints: [
      {
        on: [{ header: 'box-delivery-id' }],
        when: [either({ header: 'box-signature-primary' }, { header: 'box-delivery-timestamp' })],
        event: [{ parts: [{ json: 'trigger' }] }],
      },
    ],
  },
  {
    id: 'contentful',
    fingerprints: [
      {
        on: [{ header: 'x-contentful-topic' }],
        event: [{ parts: [{ header: 'x-contentful-topic' }] }],
      },
    ],
  },
  {
    id: 'plaid',
    fingerprints: [
      {
        on: [{ header: 'plaid-verification' }],
        when: [{ json: 'webhook_type', type: 'string' }],
        event: [{ parts: [{ json: 'webhook_type' }, { json: 'webhook_code' }] }],
      },
    ],
  },
  {
    id: 'adyen',
    fingerprints: [
      {
        on: [{ json: /"notificationItems"\s*:\s*\[/ }],
        when: [
          { json: 'notificationItems.0.NotificationRequestItem.eventCode', type: 'string' },
          { json: 'live', type: 'string' },
        ],
        event: [{ parts: [{ json: 'notificationItems.0.NotificationRequestItem.eventCode' }] }],
      },
    ],
  },
  {
    id: 'circleci',
    fingerprints: [
      {
        on: [{ header: 'circleci-event-type' }],
        event: [{ parts: [{ header: 'circleci-event-type' }] }],
      },
    ],
  },
  {
    id: 'checkout-com',
    fingerprints: [
      {
        on: [{ header: 'cko-signature' }],
        event: [{ parts: [{ json: 'type' }] }],
      },
    ],
  },
  {
    id: 'figma',
    fingerprints: [
      {
        on: [{ json: /"passcode"\s*:/ }],
        when: [
          { json: 'event_type', pattern: /^[A-Z_]+$/ },
          { json: 'webhook_id', type: 'string' },
          { json: 'protocol_version', type: 'string' },
        ],
        event: [{ parts: [{ json: 'event_type' }] }],
      },
    ],
  },
  {
    id: 'heroku',
    fingerprints: [
      {
        on: [{ header: 'heroku-webhook-hmac-sha256' }],
        event: [{ parts: [{ json: 'webhook_metadata.event.include' }, { json: 'action', optional: true }] }],
      },
    ],
  },
];
