package io.adreport.aggregator.ingest;

/** A request answered with an error status and a JSON body {@code {"error": message}}. */
final class IngestError extends RuntimeException {
    final int status;

    IngestError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }
}
