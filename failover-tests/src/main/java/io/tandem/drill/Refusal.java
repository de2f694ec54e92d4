package io.tandem.drill;

/**
 * The drill's client saw a connection to {@code node} refused at {@code atMillis} (epoch millis, when the refusal came
 * back): the node's port no longer accepts, so a balancer could send the user elsewhere from then on.
 */
record Refusal(String node, long atMillis) {}
