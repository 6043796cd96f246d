package dev.toolledger.declarative.http;

import java.util.BitSet;
import java.util.List;

/**
 * A set of HTTP statuses as written in a tools file: exact codes ({@code 409}) and classes ({@code
 * 2xx}), each from 200 to 599.
 *
 * @param name the field it was read from ({@code success}, {@code found}), for messages
 * @param written the entries as written, for messages
 * @param explicit whether the file wrote it (false: the default)
 */
record StatusSet(String name, List<String> written, BitSet members, boolean explicit) {
  static final int LOWEST = 200;
  static final int HIGHEST = 599;

  StatusSet {
    written = List.copyOf(written);
    members = (BitSet) members.clone();
  }

  static StatusSet defaults(String name, String... entries) {
    BitSet members = new BitSet();
    for (String entry : entries) {
      add(members, entry);
    }
    return new StatusSet(name, List.of(entries), members, false);
  }

  /** Adds an entry ({@code 404}, {@code "404"}, {@code 4xx}); false when it is not one. */
  static boolean add(BitSet members, String entry) {
    if (entry.matches("[2-5]xx")) {
      int base = (entry.charAt(0) - '0') * 100;
      members.set(base, base + 100);
      return true;
    }
    if (entry.matches("[2-5][0-9][0-9]")) {
      members.set(Integer.parseInt(entry));
      return true;
    }
    return false;
  }

  boolean contains(int status) {
    return status >= LOWEST && status <= HIGHEST && members.get(status);
  }

  /** How a message names this set: {@code business-error [400, 409]} plus "(default)". */
  String describe() {
    return name + " " + written + (explicit ? "" : " (default)");
  }
}
