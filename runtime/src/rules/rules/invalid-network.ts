import { type Rule, shown } from '../context';
import { badNetworks, forEachSetting } from '../settings';

/** `invalid-network`: an item of `rate_limit.trusted_proxies` is not an IP address or network. */
export const invalidNetwork: Rule = {
  code: 'invalid-network',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      if (place.spec.stage !== 'start') return;
      for (const item of badNetworks(place, tree)) {
        const raw = shown(tree.text.slice(tree.start[item], tree.end[item]), 40);
        report({
          code: 'invalid-network',
          message: `${raw} in "${place.path.join('.')}" is not an IP address or network (e.g. "10.0.0.0/8", "192.168.1.10", "::1"): the server refuses it and does not start.`,
          node: item,
        });
      }
    });
  },
};
