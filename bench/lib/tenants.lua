-- wrk script for bench/tenants: POSTs the bench body (as post.lua) to endpoints seeded by
-- test/support/seed-endpoints.ts, whose i-th slug is base + i in base 32, least significant first.
--   wrk … -s tenants.lua URL -- BASE COUNT random            a uniformly random one of COUNT per request
--   wrk … -s tenants.lua URL -- BASE COUNT walk START        START, START+1, … (wrapping at COUNT)
-- Both modes compute a slug per request, so one endpoint (COUNT 1) and many cost wrk the same.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
wrk.body = '{"id":"evt_1NqX2bLkdIwHu7ix","object":"event","api_version":"2023-08-16","created":1695040000,"type":"invoice.payment_succeeded","data":{"object":{"id":"in_1NqX2aLkdIwHu7ixabc","object":"invoice","amount_due":2000,"amount_paid":2000,"currency":"usd","customer":"cus_OdoN1xZk3kq0gM","customer_email":"jenny.rosen@example.com","lines":{"object":"list","data":[{"id":"il_1NqX2aLkdIwHu7ix","amount":2000,"description":"1 x Pro plan (at $20.00 / month)","period":{"start":1695040000,"end":1697632000}}]},"status":"paid","subscription":"sub_1NqX2aLkdIwHu7ixDEF"}},"livemode":false,"pending_webhooks":1,"request":{"id":"req_8yXFxEIXT3ixlQ","idempotency_key":"5c1e7d9a-3b4f-4c2e-9a7d-1f2e3d4c5b6a"}}'

local alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
local base, count, mode, start = 0, 1, "random", 0
local sent = 0

function init(args)
  base = tonumber(args[1])
  count = tonumber(args[2])
  mode = args[3] or "random"
  start = tonumber(args[4] or "0")
  math.randomseed(os.time())
end

local digits = {}
local function slug(i)
  local n = base + i
  for k = 1, 12 do
    local d = n % 32
    digits[k] = alphabet:sub(d + 1, d + 1)
    n = math.floor(n / 32)
  end
  return table.concat(digits)
end

function request()
  local i
  if mode == "walk" then i = (start + sent) % count else i = math.random(0, count - 1) end
  sent = sent + 1
  return wrk.format(nil, "/w/" .. slug(i))
end
