-- wrk script: post.lua's body as Stripe sends it, with a Stripe-Signature header, so provider
-- detection takes its most common expensive path (header match, then the body parsed for "type").
local post = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "post.lua")
wrk.headers["Stripe-Signature"] = "t=1695040000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"
