package io.adreport.aggregator.coalesce;

import java.util.Arrays;

/** Identity of a counter row: table index and row key bytes, hash cached. */
final class RowId {
    final int table;
    final byte[] row;
    final int hash;

    RowId(int table, byte[] row) {
        this.table = table;
        this.row = row;
        this.hash = 31 * table + Arrays.hashCode(row);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowId r && r.table == table && r.hash == hash && Arrays.equals(r.row, row);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
