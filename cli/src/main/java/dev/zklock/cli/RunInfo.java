package dev.zklock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Where and from what a run's figures came: the date, the machine (system, processors, memory, how busy it was; see
 * {@link MachineLoad}), the build (zklock's version and the commit its sources came from), the libraries and JDK, and the command
 * that produced them, so that a table of figures says what it measured. Stateless and safe for use by any thread; reads
 * the system on every call, and makes no ZooKeeper call.
 */
public final class RunInfo {
    /** The system property the {@code zklock} script sets to the commit of the sources it built the command from. */
    static final String COMMIT_PROPERTY = "zklock.commit";

    private RunInfo() {}

    /**
     * Returns one "name: value" line each for the date, machine, build, software and command of a run of
     * {@code ./zklock <args>}, the machine with its load average now, as the run's start.
     *
     * @param args the command line after {@code ./zklock}
     * @return the lines, in that order
     */
    public static List<String> origin(List<String> args) {
        return origin(args, MachineLoad.started());
    }

    /**
     * Returns one "name: value" line each for the date, machine, build, software and command of a run of
     * {@code ./zklock <args>}, the machine with {@code load}.
     *
     * @param args the command line after {@code ./zklock}
     * @param load how busy the machine was around the run
     * @return the lines, in that order
     */
    public static List<String> origin(List<String> args, MachineLoad load) {
        String command = String.join(
                " ", Stream.concat(Stream.of("./zklock"), args.stream()).toList());
        return List.of(
                "date: "
                        + ZonedDateTime.now(ZoneOffset.UTC)
                                .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                "machine: " + machine() + ", " + load.describe(),
                "build: " + build(),
                "software: " + software(),
                "command: `" + command + "`");
    }

    /** Returns the machine: "Linux 6.8.0 (amd64), 2 cores (AMD EPYC 7B13), 7.8 GB". */
    static String machine() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        StringBuilder machine = new StringBuilder(String.format(
                Locale.ROOT,
                "%s %s (%s), %d cores",
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors()));
        cpuModel().ifPresent(model -> machine.append(" (").append(model).append(')'));
        if (os instanceof com.sun.management.OperatingSystemMXBean memory) {
            machine.append(String.format(Locale.ROOT, ", %.1f GB", memory.getTotalMemorySize() / 1e9));
        }
        return machine.toString();
    }

    /**
     * Returns the build: "zklock 0.1.0-SNAPSHOT, commit 1a2b3c4"; the commit is what the {@code zklock} script passed in
     * {@value #COMMIT_PROPERTY} ("+changes" when the sources differed from it), or "commit unknown" when the command ran
     * otherwise.
     */
    static String build() {
        String commit = System.getProperty(COMMIT_PROPERTY, "");
        return String.format(
                Locale.ROOT,
                "zklock %s, %s",
                buildProperties().getProperty("version", "(version unknown)"),
                commit.isBlank() ? "commit unknown" : "commit " + commit);
    }

    /** Returns the libraries and the JDK: "Curator 5.9.0, ZooKeeper 3.9.3, Java 17.0.13 (Eclipse Adoptium)". */
    static String software() {
        String zooKeeper = org.apache.zookeeper.Version.getFullVersion().split("[-, ]")[0];
        return String.format(
                Locale.ROOT,
                "Curator %s, ZooKeeper %s, Java %s (%s)",
                buildProperties().getProperty("curator", "(version unknown)"),
                zooKeeper,
                Runtime.version(),
                System.getProperty("java.vendor"));
    }

    private static Optional<String> cpuModel() {
        Path cpuInfo = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(cpuInfo)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(cpuInfo)) {
            return lines.filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).strip())
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Properties buildProperties() {
        Properties properties = new Properties();
        try (InputStream in = RunInfo.class.getResourceAsStream("/zklock-build.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // an unreadable resource leaves the version unknown, which the line then says
        }
        return properties;
    }
}
