package io.adreport.aggregator.coalesce;

import java.util.Arrays;

/**
 * Identity of a counter row: table index and the row key {@code row[0, length)}, hash cached.
 * A key in the buffer's maps owns an array of exactly its key; an {@link CoalescingBuffer.Adder}
 * also keeps one mutable probe ({@link #set}) that names a slice of a reused buffer, so that
 * looking up a row that is already buffered allocates nothing. A probe is never put in a map.
 */
final class RowId {
    private int table;
    private byte[] row;
    private int length;
    private int hash;

    RowId(int table, byte[] row) {
        set(table, row, row.length);
    }

    /** Makes this (a probe) name {@code row[0, length)} of {@code table}. */
    RowId set(int table, byte[] row, int length) {
        this.table = table;
        this.row = row;
        this.length = length;
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + row[i];
        }
        this.hash = 31 * table + h;
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowId r && r.table == table && r.hash == hash
                && Arrays.equals(r.row, 0, r.length, row, 0, length);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
