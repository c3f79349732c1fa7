package io.adreport.serving.check;

import java.util.List;
import org.apache.hadoop.hbase.client.Get;

/** The check's profile Get for benchmarks outside this package. */
public final class ProfileGets {
    private ProfileGets() {
    }

    /** The Get a check makes ({@link ProfileReader#get}): one multi-prefix filter; K is applied while decoding. */
    public static Get check(byte[] row, List<byte[]> campaignPrefixes) {
        return ProfileReader.get(row, campaignPrefixes);
    }
}
