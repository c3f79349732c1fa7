package io.adreport.schema.rowkey;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link KeyBytes#terminated}: the same bytes as each value's UTF-8 and a 0x00, one after the other. */
class KeyBytesTest {
    @Test
    void terminated_values_are_their_utf8_bytes_each_followed_by_0x00() {
        List<String> values = List.of("adv1", "café-3", "", "日本", "😀", "\u007f", "\u0080", "\ud800");
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (String v : values) { // independently: the JDK's encoder, then the terminator
            expected.writeBytes(v.getBytes(StandardCharsets.UTF_8));
            expected.write(0);
        }
        assertArrayEquals(expected.toByteArray(), KeyBytes.terminated(values));
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        values.forEach(v -> KeyBytes.writeTerminated(streamed, v));
        assertArrayEquals(expected.toByteArray(), streamed.toByteArray());
    }

    @Test
    void a_value_holding_0x00_is_refused_whether_ascii_or_not() {
        assertThrows(IllegalArgumentException.class, () -> KeyBytes.terminated(List.of("a\u0000b")));
        assertThrows(IllegalArgumentException.class, () -> KeyBytes.terminated(List.of("ok", "é\u0000")));
        assertThrows(IllegalArgumentException.class, () -> KeyBytes.writeTerminated(new ByteArrayOutputStream(), "a\u0000"));
    }
}
