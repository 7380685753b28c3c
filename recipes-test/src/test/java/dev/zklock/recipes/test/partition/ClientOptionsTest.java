package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The command lines of the rig's client and observer JVMs. */
final class ClientOptionsTest {
    private static final String[] CLIENT = {
        "--id",
        "c2",
        "--connect",
        "198.18.0.1:2181",
        "--history",
        "/run/c2.history",
        "--seed",
        "-7",
        "--seconds",
        "60",
        "--session-timeout-ms",
        "4000"
    };

    @Test
    void parse_theRigsCommandLine_givesEveryOptionAndTheStoreBesideTheHistory() {
        ClientOptions options = ClientOptions.parse(CLIENT);

        assertThat(options)
                .isEqualTo(new ClientOptions(
                        "c2",
                        "198.18.0.1:2181",
                        Path.of("/run/c2.history"),
                        -7,
                        Duration.ofSeconds(60),
                        4000,
                        Path.of("/run/store")));
    }

    @Test
    void parse_withAStore_takesIt() {
        String[] args = Arrays.copyOf(CLIENT, CLIENT.length + 2);
        args[CLIENT.length] = "--store";
        args[CLIENT.length + 1] = "/shared";

        assertThat(ClientOptions.parse(args).store()).isEqualTo(Path.of("/shared"));
    }

    @Test
    void parse_withAMissingUnknownOrBadArgument_throwsNamingIt() {
        assertThatThrownBy(() -> ClientOptions.parse("--id", "c1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'--connect'");
        assertThatThrownBy(() -> ClientOptions.parse("--ids", "c1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'--ids'");
        assertThatThrownBy(() -> ClientOptions.parse("--id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'--id' has no value");
        String[] badSeconds = CLIENT.clone();
        badSeconds[9] = "soon";
        assertThatThrownBy(() -> ClientOptions.parse(badSeconds))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'soon'");
        String[] badId = CLIENT.clone();
        badId[1] = "c.2";
        assertThatThrownBy(() -> ClientOptions.parse(badId))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'c.2'");
    }

    @Test
    void parseObserver_theRigsCommandLine_waitsThirtySecondsForTheClientsAndSeedsZeroByDefault() {
        ObserverOptions options =
                ObserverOptions.parse("--connect", "198.18.0.1:2181", "--history", "/run/observer", "--seconds", "60");

        assertThat(options)
                .isEqualTo(new ObserverOptions(
                        "198.18.0.1:2181",
                        Path.of("/run/observer"),
                        Duration.ofSeconds(60),
                        Path.of("/run/store"),
                        Duration.ofSeconds(30),
                        0));
    }
}
