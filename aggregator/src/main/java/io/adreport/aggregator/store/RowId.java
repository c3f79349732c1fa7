package io.adreport.aggregator.store;

import java.util.Arrays;

/** A raw row key with value equality (a byte array has identity equality). */
record RowId(byte[] row) {
    @Override
    public boolean equals(Object o) {
        return o instanceof RowId r && Arrays.equals(r.row, row);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(row);
    }

    @Override
    public String toString() {
        return org.apache.hadoop.hbase.util.Bytes.toStringBinary(row);
    }
}
