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

  /** The page the requests of {@code user} go to (one application's, when the users are spread over several). */
  default String page(int user) {
    return page();
  }

  /** Every page the users write to: an id acknowledged as invalidated must come back on none of them. */
  default List<String> pages() {
    return List.of(page());
  }

  /** Whether each tab numbers its writes into the session's {@code seq}, so the checker can prove versions never go back. */
  default boolean numbersWrites() {
    return true;
  }

  /** Per account, the principal it logged in with, as the page describes it; empty when users do not log in so. */
  default Map<Integer, String> principals() {
    return Map.of();
  }

  /** What the report should say about this workload beyond the checker's numbers. */
  default List<String> notes() {
    return List.of();
  }
}
