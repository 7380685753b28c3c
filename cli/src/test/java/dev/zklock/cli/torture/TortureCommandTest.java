package dev.zklock.cli.torture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.cli.Zklock;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code zklock torture}: a short run on one server, and bad options. */
@Timeout(180)
final class TortureCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void torture_shortSeededRun_reportsEveryFigureAndExitsZero() {
        int status = run(
                "torture", "--seconds", "8", "--seed", "42", "--servers", "1", "--clients", "10", "--threads", "10");

        assertThat(status).as("exit status; stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("seed              42 (replay: zklock torture --seconds 8 --seed 42")
                .containsPattern("acquisitions +[1-9]\\d* \\{curator-mutex=\\d+, "
                        + "zk-cohort=\\d+, zk-cohort-cached=\\d+, zk-cohort-read=\\d+, zk-cohort-write=\\d+, "
                        + "zk-exclusive=\\d+, zk-multi=\\d+, zk-read=\\d+, zk-reentrant=\\d+, zk-write=\\d+}")
                .containsPattern("same node +\\d+ \\{")
                .containsPattern("faults +\\d+ \\{")
                .contains("overlaps          0", "token regressions 0", "leaked nodes      0", "stuck waiters     0")
                .contains("verdict           clean");
        assertThat(err.toString()).contains("seed 42").contains("] 8/8  8 s, ");
    }

    @Test
    void torture_simulate_runsTheSeedsAndPrintsTheSummary() {
        int status = run("torture", "--simulate", "--seed", "5", "--seeds", "200");

        assertThat(status).as("exit status; stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("seeds             200 (from 5)")
                .containsPattern("events +[1-9][\\d,]*")
                .containsPattern("holds granted +[1-9][\\d,]*")
                .contains("violations        0", "verdict           clean");
        assertThat(err.toString()).contains("seeds 5 to 204");
    }

    @Test
    void torture_simulateWithQueueViews_runsTheSeedsWithViews() {
        int status = run("torture", "--simulate", "--queue-views", "--seed", "7", "--seeds", "100");

        assertThat(status).as("exit status; stdout:%n%s%nstderr:%n%s", out, err).isZero();
        assertThat(out.toString())
                .contains("seeds             100 (from 7)", "queue views       on")
                .containsPattern("holds granted +[1-9][\\d,]*")
                .contains("violations        0", "verdict           clean");
        assertThat(err.toString()).contains("seeds 7 to 106 on", "queue views");
    }

    @Test
    void torture_badOptions_exitTwoNamingTheOptionAndValue() {
        assertThat(run("torture", "--seconds", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--seconds must be at least 1, not 0");

        assertThat(run("torture", "--servers", "9")).isEqualTo(2);
        assertThat(err.toString()).contains("--servers must be 1 to 7, not 9");

        assertThat(run("torture", "--clients", "4", "--threads", "3")).isEqualTo(2);
        assertThat(err.toString()).contains("--threads must be at least --clients (4), not 3");

        assertThat(run("torture", "--seed", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("soon");

        assertThat(run("torture", "--simulate", "--seeds", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--seeds must be at least 1, not 0");

        assertThat(run("torture", "--faults", "chaos")).isEqualTo(2);
        assertThat(err.toString()).contains("--faults must be 'default' or 'cohort', not 'chaos'");

        assertThat(run("torture", "--queue-views")).isEqualTo(2);
        assertThat(err.toString()).contains("--queue-views is an option of --simulate");
    }

    private int run(String... args) {
        return new CommandLine(new Zklock())
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
    }
}
