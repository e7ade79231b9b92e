/**
 * Real-looking URL path segments and what they must collapse to. The rule for
 * ":hash" (no word structure) in src/grouping/segments.ts is measured on this.
 */
export const GENERATED: string[] = [
  // hex digests, object ids, git shas
  '8f14e45fceea167a', 'd41d8cd98f00b204e9800998ecf8427e', '5d41402abc4b2a76b9719d911017c592', 'e83c5163316f89bfbde7d9ab23ca2e25604af290',
  'a3f5c9e1b2d4', '507f1f77bcf86cd799439011', '5f8d0d55b54764421b7156c3', '9b2c4e6f8a1d3c5e', 'c0ffee1234567890', '0a1b2c3d4e5f6a7b',
  '3e25960a79dbc69b674cd4ec67a72c62', 'aab3238922bcc25a6f606eb525ffdc56', '2fd4e1c67a2d28fced849ee1bb76e739', 'f1d2d2f924e986ac86fdf7b36c94bcdf',
  '7c4a8d09ca3762af61e59520943dc264', '6b86b273ff34fce19d6b804eff5a3f57', 'b6589fc6ab0dc82cf12099d1c2d40ab9', '356a192b7913b04c54574d18c28d46e6',
  'da39a3ee5e6b4b0d3255bfef95601890', '1f3870be274f6c49b3e31a0c6728957f', '64ef07ce3e4b420c9b4b8e6f', '4b825dc642cb6eb9a060e54bf8d69288',
  // cuid, cuid2, nanoid and friends (lowercase alphanumerics)
  'ckx7z9y2b0000qwe8r5t6y7u8', 'cjld2cjxh0000qzrmn831i7rn', 'cl9ebqhxk00003b5v7x8y9z0a', 'clh3am1f30000udocbcsv3e7u', 'tz4a98xxat96iws9zmbrgj3a',
  'pfh0haxfpzowht3oi213cqos', 'nc6bzmkmd014706rfda898to', 'v1stgxr8z5jdhi6bmyt', 'k3j5h2l9m8n1p0q4', 'x7k2m9p4q8r1', 'h2n8d5w3q7z1b6',
  'q8w7e6r5t4y3u2i1', 'z9x8c7v6b5n4m3', 'p0o9i8u7y6t5r4e3', 'r4nd0mstr1ng9x', 'l5k4j3h2g1f0', 'w3e4r5t6y7u8i9o0', 'm1n2b3v4c5x6z7',
  'g7h8j9k0l1z2x3', 'j8k7l6m5n4b3v2', 'y5u6i7o8p9a0s1', 'd3f4g5h6j7k8l9', 'b2n3m4q5w6e7r8', 'u1i2o3p4a5s6d7', 'f6g7h8j9k1l2m3',
  // base32 / base36 / random letters
  'mfrggzdfmztwq', 'jbswy3dpehpk3pxp', 'gezdgnbvgy3tqojq', 'kruhe5lbnrsxgzdf', 'onxw2zjanrxw4zz', 'nbswy3dpfqqho33snrscc',
  'xkcdqwrtzplmvb', 'qzjxwvbnmrtplk', 'bcdfghjklmnp', 'ztpqwmxkvbrd', 'hjklmnbvcxzq', 'plmkoqwnzxbv', 'tsrqpnmlkjhg',
  'k1h2j3g4f5d6', '1a2b3c4d5e6f7g8h', '2k9d8f7g6h5j', 'a1b2c3d4e5f6', 'lzf3kd9q2mzx', '0x1f2e3d4c5b6a', '9z8y7x6w5v4u3t',
  'kq3xhw9vbz2m', 'r7tq2xzv9wkm', 'fx9qk2vzw7mt', 'wq2zx9vk7mtr', 'zv7wq2kx9mtr', 'mt9zq2vwx7kr', 'qk2w7zvx9rmt',
  'bz4qx8vw2kmt', 'tx8q4zwv2mkb', 'vw2x8q4zmtbk', 'xq8z4wv2tmkb', 'zw4x2qv8bkmt', 'wx4v8zq2kbtm', 'qz2w8x4vtbkm',
  '1kz8h3qx7w2m', '3qx7w2m1kz8h', '7w2m1kz8h3qx', '2m1kz8h3qx7w', '8h3qx7w2m1kz', 'x7w2m1kz8h3q', 'm1kz8h3qx7w2',
  '1700000000abc', '20261121abc1', 'sbxzq1m7k2t9w', '123456789abc', '987654321xyz', '555123456abc',
  'hqtr8v2kw5zj', 'nrp4xw7mq2tk', 'gpk9zt3xwm5q', 'jzq5w8tkx3mr', 'vfq2z9kxw4tm', 'ckw7q3ztx9mr', 'dzq8x4wk2mtv',
]

export const WORDS: string[] = [
  // English words and unhyphenated compounds of 12+ letters
  'introduction', 'accountsettings', 'notifications', 'subscriptions', 'documentation', 'troubleshooting', 'authentication', 'administration',
  'configuration', 'international', 'transactions', 'checkoutsuccess', 'passwordreset', 'gettingstarted', 'customerstories', 'integrations',
  'announcements', 'pricingplans', 'enterpriseplan', 'privacypolicy', 'termsofservice', 'thequickbrownfox', 'strengthening', 'rhythmandblues',
  'organizations', 'recommendations', 'partnerprogram', 'securityoverview', 'releasenotes', 'communityforum', 'accessibility', 'responsibility',
  'shoppingcart', 'orderhistory', 'billinghistory', 'paymentmethods', 'shippingaddress', 'emailpreferences', 'teammembers', 'workspacesettings',
  'dashboardoverview', 'analyticsreport', 'conversionfunnel', 'userprofiles', 'personalinformation', 'supportcenter', 'knowledgebase', 'careersatacme',
  'investorrelations', 'pressreleases', 'brandguidelines', 'developerportal', 'apireference', 'changelogentries', 'migrationguide', 'bestpractices',
  'frequentlyasked', 'contactsupport', 'livechatsupport', 'comparisonchart', 'featurerequests', 'betaprogram', 'earlyaccess', 'giftcards',
  'wishlistitems', 'recentlyviewed', 'newarrivals', 'clearancesale', 'mensclothing', 'womensshoes', 'kidsfurniture', 'kitchenappliances',
  'outdoorgear', 'fitnesstracker', 'smarthomedevices', 'gamingaccessories', 'officesupplies', 'petsupplies', 'gardentools', 'homeimprovement',
  'booksandmedia', 'musicinstruments', 'artsandcrafts', 'healthandbeauty', 'jewelrywatches', 'travelluggage', 'automotiveparts', 'industrialtools',
  'photographygear', 'cameralenses', 'drawingtablets', 'mechanicalkeyboards', 'noisecancelling', 'wirelessearbuds', 'portablechargers', 'solarpanels',
  // words with numbers (one or two switches)
  'whatsnewin2026', 'blackfriday2025', 'summersale2026', 'iphone15promax', 'galaxys23ultra', 'johnsmith1987', 'sarahconnor1984', 'windows11upgrade',
  'playstation5bundle', 'macbookpro2024', 'yearinreview2025', 'top10products', 'q3earningsreport', 'covid19updates', 'web3integration', 'version2release',
  'chapter12summary', 'episode42recap', 'season3finale', 'room101booking', 'route66roadtrip', 'agenda2030goals', 'product2comparison', 'level99achievement',
  // usernames and handles
  'mikejohnson', 'jenniferlopez', 'christopherlee', 'alexandramartin', 'williamthompson', 'elizabethtaylor', 'danielrodriguez', 'stephaniewhite',
  // short segments, slugs, prefixed and mixed-case ids: never collapsed
  'pricing', 'blog', 'acme-corp', 'new-york', 'cus_9QxA7bC2dE', 'usr_2b8f9c1a7d3e4f5a', 'dGhpcyBpcw', 'MyProfile', 'introducing-our-new-pricing',
  'pi_3MtwBwLkdIwHu7ix28a3tqPa', 'sub_1MowQVLkdIwHu7ixeRlqHVzs', 'org_2b8f9c1a7d3e', 'AbCdEfGhIjKlMnOp', 'x7k2m9p4q8', 'a3f5c9e1b2', 'release-2026',
  'v2', 'api', 'en-us', 'mzxw6ytboi', '1637qzt8', 'settings', 'getting-started', 'how-to-install', '8f14e45f', 'INV-2026-0042', 'Order_12345678', 'HelloWorld2026',
]

export const EXACT: [string, string][] = [
  ['42', ':id'], ['123456', ':id'], ['0', ':id'], ['1234567890123456', ':id'], ['2026', ':id'], ['20261341', ':id'],
  ['550e8400-e29b-41d4-a716-446655440000', ':uuid'], ['550E8400-E29B-41D4-A716-446655440000', ':uuid'], ['f47ac10b-58cc-4372-a567-0e02b2c3d479', ':uuid'],
  ['2026-11-21', ':date'], ['20261121', ':date'], ['2026-11', ':date'], ['1999-12-31', ':date'], ['2024-02-29', ':date'],
  ['2023-02-29', '2023-02-29'], ['2026-13', '2026-13'], ['2026-1-5', '2026-1-5'],
]
