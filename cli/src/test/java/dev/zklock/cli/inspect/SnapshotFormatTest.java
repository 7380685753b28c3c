package dev.zklock.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class SnapshotFormatTest {
    @Test
    void printable_bytesOutsidePrintableAscii_areEscaped() {
        byte[] data = {'i', 'p', '=', 0, (byte) 0xff, '\\'};

        assertThat(SnapshotFormat.printable(data, 100)).isEqualTo("ip=\\x00\\xff\\x5c");
    }

    @Test
    void printable_longData_isCutWithAnEllipsis() {
        byte[] data = "worker-17 on host-a.example.com".getBytes(StandardCharsets.US_ASCII);

        assertThat(SnapshotFormat.printable(data, 12)).isEqualTo("worker-17...");
    }

    @ParameterizedTest
    @CsvSource({"850, 850ms", "12400, 12.4s", "185000, 3m05s", "7380000, 2h03m", "273600000, 3d04h"})
    void age_ofMillis_isShort(long millis, String shown) {
        assertThat(SnapshotFormat.age(millis)).isEqualTo(shown);
    }
}
