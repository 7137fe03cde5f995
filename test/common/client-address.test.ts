// One client's address for per-address budgets (client-address.ts): an IPv4 address as itself
// (also IPv4-mapped), an IPv6 address by its /64, anything else no address; the budget key of a
// request's address the same, or the string as it came.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressBudgetName, addressName } from '../../src/common/client-address.ts';

test('addresses: IPv4 as itself (also IPv4-mapped), IPv6 by its /64, anything else none', () => {
  assert.equal(addressName('203.0.113.7'), '203.0.113.7');
  assert.equal(addressName('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressName('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(addressName('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
  assert.equal(addressName('2001:db8:1:2::/64'), '2001:db8:1:2::/64');
  assert.equal(addressName('::1'), '::/64');
  for (const wrong of ['', 'localhost', '203.0.113', '2001:db8::g', '../etc'])
    assert.equal(addressName(wrong), undefined, wrong);
});

test('budget keys: an IPv6 network shares one, IPv4 addresses are their own', () => {
  assert.equal(addressBudgetName('203.0.113.7'), '203.0.113.7');
  assert.equal(addressBudgetName('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressBudgetName('2001:db8:1:2::a'), addressBudgetName('2001:db8:1:2:ffff::b'));
  assert.notEqual(addressBudgetName('2001:db8:1:2::a'), addressBudgetName('2001:db8:1:3::a'));
  assert.equal(addressBudgetName('not:an address'), 'not:an address');
});
