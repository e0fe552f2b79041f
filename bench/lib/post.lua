-- wrk script: POST a ~1 KB JSON webhook body, like a typical sender.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
wrk.body = '{"id":"evt_1NqX2bLkdIwHu7ix","object":"event","api_version":"2023-08-16","created":1695040000,"type":"invoice.payment_succeeded","data":{"object":{"id":"in_1NqX2aLkdIwHu7ixabc","object":"invoice","amount_due":2000,"amount_paid":2000,"currency":"usd","customer":"cus_OdoN1xZk3kq0gM","customer_email":"jenny.rosen@example.com","lines":{"object":"list","data":[{"id":"il_1NqX2aLkdIwHu7ix","amount":2000,"description":"1 x Pro plan (at $20.00 / month)","period":{"start":1695040000,"end":1697632000}}]},"status":"paid","subscription":"sub_1NqX2aLkdIwHu7ixDEF"}},"livemode":false,"pending_webhooks":1,"request":{"id":"req_8yXFxEIXT3ixlQ","idempotency_key":"5c1e7d9a-3b4f-4c2e-9a7d-1f2e3d4c5b6a"}}'
