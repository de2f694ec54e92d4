package io.tandem.benchmarks.load;

/**
 * Sees every complete response, on the event loop thread that received it, after it was recorded. Whatever it does
 * delays that loop like any other driver work would: tests use that to stall the driver.
 */
@FunctionalInterface
interface ResponseListener {

  ResponseListener NONE = (user, status) -> { };

  void onResponse(int user, int status);
}
