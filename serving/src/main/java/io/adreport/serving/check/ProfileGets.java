package io.adreport.serving.check;

import java.util.List;
import org.apache.hadoop.hbase.client.Get;

/** The check's profile Get, public so that the serving benchmarks' floor (module benchmarks) reads exactly what a check reads. */
public final class ProfileGets {
    private ProfileGets() {
    }

    /** The Get a check makes ({@link ProfileReader#get}): one multi-prefix filter; K is applied while decoding. */
    public static Get check(byte[] row, List<byte[]> campaignPrefixes) {
        return ProfileReader.get(row, campaignPrefixes);
    }
}
