package dev.zklock.cli.torture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.cli.CommandRun;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code zklock torture --partitions} for real, as root, with the rig's probe as workload and observer: a short seeded
 * run that builds the rig, runs the nemesis, tears it all down and prints the histories and the replay line.
 */
@Timeout(240)
final class TorturePartitionsTest {
    private static final String PROBE = "dev.zklock.recipes.test.partition.RigProbe";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void torturePartitions_shortSeededRun_writesHistoriesTearsDownAndPrintsTheReplay() throws Exception {
        int status = CommandRun.into(out, err)
                .execute(
                        "torture",
                        "--partitions",
                        "--seconds",
                        "15",
                        "--seed",
                        "77",
                        "--client-main",
                        PROBE,
                        "--observer-main",
                        PROBE);

        assertThat(status).as("exit status; stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out.toString())
                .containsPattern("run +zkp[0-9a-f]{4}, seed 77, 15 s, 3 clients")
                .containsPattern("faults +[1-9]\\d* \\{cut \\d+, cut-one-way \\d+, ")
                .contains("workloads         {c1=exit 0, c2=exit 0, c3=exit 0, obs=exit 0}")
                .contains("replay            zklock torture --partitions --seconds 15 --seed 77");
        Path histories = Path.of(value("histories"));
        assertThat(histories.resolve("nemesis.history")).isNotEmptyFile();
        for (String client : List.of("c1", "c2", "c3")) {
            assertThat(lines(histories.resolve(client + ".history")))
                    .anyMatch(line -> line.matches("\\d+\t" + client + "\tok\tprobe\t/rig-probe/" + client + "\t-"));
        }
        assertThat(lines(histories.resolve("observer.history")))
                .anyMatch(line -> line.matches("\\d+\tprobe\tok\tprobe\t/rig-probe/probe\t-"));
        String runId = value("run").substring(0, 7);
        assertThat(new ProcessBuilder("ip", "netns", "list")
                        .start()
                        .getInputStream()
                        .readAllBytes())
                .asString()
                .doesNotContain(runId + "-");
    }

    @Test
    void torturePartitions_clientsOutOfRange_exitTwoNamingTheValue() {
        int status = CommandRun.into(out, err).execute("torture", "--partitions", "--clients", "6");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("--clients must be 3 to 5 with --partitions, not 6");
    }

    private String value(String label) {
        Matcher matcher = Pattern.compile("(?m)^" + label + " +(\\S+?),?( |$)").matcher(out.toString());
        assertThat(matcher.find()).as("a %s line in%n%s", label, out).isTrue();
        return matcher.group(1);
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.readAllLines(file);
    }
}
