package io.adreport.aggregator.store;

/** No room for a request within the block limit: answer 429 with Retry-After. */
public final class Overloaded extends Exception {
    public Overloaded(String message) {
        super(message, null, false, false);
    }
}
