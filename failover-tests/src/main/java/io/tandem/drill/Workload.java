package io.tandem.drill;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Users putting load on the cluster and recording what happened to each request. */
interface Workload {
  void start();

  /** Waits until every user has a session with a few acknowledged writes; false if not within {@code timeout}. */
  boolean awaitWarm(Duration timeout) throws InterruptedException;

  /** Lets users stop once they made their minimum writes, and waits for them; every user stops at its maximum. */
  void finish(Duration timeout) throws InterruptedException;

  /** Every request made, in no particular order. */
  List<Operation> history();

  /** A browser holding each account's current cookie, to read the session back at the end. */
  Map<Integer, Browser> browsers();

  /** The page every request of this workload goes to. */
  String page();
}
