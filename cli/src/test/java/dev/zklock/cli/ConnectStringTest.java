package dev.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class ConnectStringTest {
    @Test
    void parse_severalServersAndChroot_namesEachServer() {
        ConnectString parsed = ConnectString.parse("zk1:2181,10.0.0.2:2182,[::1]:2183,zk4/apps/locks");

        assertThat(parsed.servers())
                .containsExactly(
                        new ConnectString.Server("zk1", 2181),
                        new ConnectString.Server("10.0.0.2", 2182),
                        new ConnectString.Server("::1", 2183),
                        new ConnectString.Server("zk4", 2181));
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost:99999", "localhost:abc", "localhost:", "zk1:2181,", "zk 1:2181", "[::1:2181"})
    void parse_malformed_throwsNamingTheConnectString(String connect) {
        assertThatThrownBy(() -> ConnectString.parse(connect))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + connect + "'");
    }

    @Test
    void parse_badPort_namesThePort() {
        assertThatThrownBy(() -> ConnectString.parse("zk1:2181,zk2:21x1")).hasMessageContaining("port '21x1'");
    }

    @Test
    void parse_badChroot_namesTheChroot() {
        assertThatThrownBy(() -> ConnectString.parse("zk1:2181/apps//locks"))
                .hasMessageContaining("chroot '/apps//locks'");
    }
}
