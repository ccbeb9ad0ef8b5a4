//! `damka-loadtest`: the command line. Parses the scenario, starts or finds the damka
//! nodes and the relay baseline, runs the scenario on both, prints the table and
//! writes the JSON report.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use loadtest::arena::ArenaPlan;
use loadtest::chaos::{self, ChaosPlan};
use loadtest::plan::{
    Common, ConnPlan, PairingMode, PlayPlan, Spread, SystemUnderTest, Think, default_mix,
    parse_mix_entry,
};
use loadtest::report::{Comparison, RunReport};
use loadtest::target::Target;
use loadtest::{arena, arena_kill, botapi, procmem, relay, run, spawn};

/// Load test for damka: bots that play real games, against damka and a bare relay.
#[derive(Debug, Parser)]
#[command(name = "damka-loadtest", version)]
struct Cli {
    #[command(subcommand)]
    scenario: Scenario,
    #[command(flatten)]
    global: Global,
}

#[derive(Debug, Args)]
struct Global {
    /// damka node URLs (loopback only), repeatable or comma-separated. Ignored with
    /// --damka-bin.
    #[arg(
        long,
        global = true,
        value_delimiter = ',',
        default_value = "ws://127.0.0.1:8080"
    )]
    url: Vec<String>,
    /// Start fresh damka nodes from this binary for the run (killed afterwards).
    #[arg(long, global = true)]
    damka_bin: Option<PathBuf>,
    /// Nodes to start with --damka-bin.
    #[arg(long, global = true)]
    nodes: Option<usize>,
    /// Extra KEY=VALUE environment for started nodes (e.g. DAMKA_WS__OUTGOING_QUEUE=64).
    #[arg(long, global = true)]
    damka_env: Vec<String>,
    /// Server process ids to measure (default: found by the URLs' ports).
    #[arg(long, global = true, value_delimiter = ',')]
    server_pid: Vec<u32>,
    /// Skip damka; run the relay baseline only.
    #[arg(long, global = true)]
    relay_only: bool,
    /// Skip the relay baseline.
    #[arg(long, global = true)]
    no_baseline: bool,
    /// Run the relay as a child process (so its memory can be measured) instead of
    /// in-process on its own threads.
    #[arg(long, global = true)]
    relay_process: bool,
    /// Worker threads of the relay.
    #[arg(long, global = true, default_value_t = 2)]
    relay_workers: usize,
    /// Read buffer of the relay's sockets in bytes (default: tungstenite's, 128 KiB).
    #[arg(long, global = true)]
    relay_read_buffer: Option<usize>,
    /// Relay processes, linked through Redis (--relay-redis) when more than one: the
    /// multinode scenario's like-for-like baseline (bots spread over them as over the
    /// nodes). Implies --relay-process.
    #[arg(long, global = true, default_value_t = 1)]
    relay_nodes: usize,
    /// The Redis linked relay processes exchange frames through.
    #[arg(long, global = true, default_value = "redis://127.0.0.1:6379")]
    relay_redis: String,
    /// Write the report as JSON here.
    #[arg(long, global = true)]
    json_out: Option<PathBuf>,
    /// 127.0.0.x source addresses to spread client sockets over.
    #[arg(long, global = true, default_value_t = 16)]
    sources: usize,
    /// Connections being opened at once.
    #[arg(long, global = true, default_value_t = 256)]
    connect_parallel: usize,
    /// Reserve each client socket's port at bind time, as the load test did before it
    /// used IP_BIND_ADDRESS_NO_PORT (slow past ~20,000 sockets): to measure the change.
    #[arg(long, global = true)]
    reserve_ports: bool,
    /// Seed of the bots' random moves and think times.
    #[arg(long, global = true, default_value_t = 1)]
    seed: u64,
    /// Length of the timed phase, in seconds (scenario default if absent).
    #[arg(long, global = true)]
    duration: Option<u64>,
}

#[derive(Debug, Subcommand)]
enum Scenario {
    /// N games at about one move per second per game.
    Steady(PlayArgs),
    /// Games with no think time: the most moves per second the server carries.
    Saturate(PlayArgs),
    /// Every player seeks or joins a pool in the same instant, then plays a game.
    Burst(PlayArgs),
    /// One game, thousands of spectators.
    Fanout(PlayArgs),
    /// Steady play spread over several nodes (--url a,b or --damka-bin with --nodes).
    Multinode(PlayArgs),
    /// One arena, every bot in it: the first wave's pairing time, the leaderboard's
    /// update latency, and the move round trip against steady play at the same number
    /// of games (run next, on fresh nodes, instead of the relay).
    Arena(ArenaArgs),
    /// Three nodes (needs --damka-bin) and a Redis of the run's own: a node killed
    /// with SIGKILL and Redis restarted during play; games and moves lost, stalls,
    /// clock refunded.
    Chaos(ChaosArgs),
    /// Bots playing chess over the HTTP Bot API (game streams, move POSTs), then the
    /// same number of games over the WebSocket on the same node: the move round trip
    /// of both and their ratio.
    Botapi(BotapiArgs),
    /// Open as many idle connections as the box holds and keep them.
    Idle(ConnArgs),
    /// Open connections as fast as possible.
    Storm(ConnArgs),
    /// Serve the bare relay alone (used by --relay-process).
    Relay {
        /// Worker threads.
        #[arg(long, default_value_t = 2)]
        workers: usize,
        /// Socket read buffer in bytes (default: tungstenite's).
        #[arg(long)]
        read_buffer: Option<usize>,
        /// Share rooms with the relay processes on this Redis (and --prefix).
        #[arg(long, requires = "prefix")]
        redis: Option<String>,
        /// Channel and key prefix the linked processes share.
        #[arg(long)]
        prefix: Option<String>,
    },
}

#[derive(Debug, Args)]
struct PlayArgs {
    /// Games played at once.
    #[arg(long)]
    games: Option<usize>,
    /// Spectators per game.
    #[arg(long)]
    spectators: Option<usize>,
    /// Think time per move in ms.
    #[arg(long)]
    think_ms: Option<u64>,
    /// Random extra think time, 0..=this ms.
    #[arg(long)]
    jitter_ms: Option<u64>,
    /// Variant and time control mix, e.g. "russian 3+2,chess 5+3" (default: every
    /// variant, damka's default pools).
    #[arg(long, value_delimiter = ',')]
    mix: Vec<String>,
    /// How players pair.
    #[arg(long, value_enum)]
    pairing: Option<PairingMode>,
    /// Spread the pairs' starts over this many seconds.
    #[arg(long)]
    ramp_secs: Option<f64>,
    /// A player resigns at this ply.
    #[arg(long, default_value_t = 300)]
    max_plies: u32,
    /// Games each pair plays at most.
    #[arg(long)]
    games_per_pair: Option<u32>,
    /// How bots are spread over nodes.
    #[arg(long, value_enum, default_value = "bot")]
    spread: Spread,
    /// Players of the computer beside the games (damka only; not in the move figures):
    /// each plays the computer game after game, answering at once, to keep the
    /// node's engine threads busy.
    #[arg(long, default_value_t = 0)]
    computer_games: usize,
    /// The computer players' game and clock.
    #[arg(long, default_value = "international 5+3")]
    computer_game: String,
    /// The computer's level for them.
    #[arg(long, default_value_t = 8)]
    computer_level: u8,
}

#[derive(Debug, Args)]
struct ArenaArgs {
    /// Players in the arena (even: the first wave pairs them all).
    #[arg(long, default_value_t = 1000)]
    players: usize,
    /// The arena's game and clock, e.g. "russian 1+0".
    #[arg(long, default_value = "russian 1+0")]
    game: String,
    /// Think time per move in ms.
    #[arg(long, default_value_t = 950)]
    think_ms: u64,
    /// Random extra think time, 0..=this ms.
    #[arg(long, default_value_t = 100)]
    jitter_ms: u64,
    /// Seconds from the arena's creation (every bot connected) to its start.
    #[arg(long)]
    lead_secs: Option<u64>,
    /// The arena's length in seconds (at least 10; pairing stops a game's estimated
    /// length before the end).
    #[arg(long, default_value_t = 120)]
    length_secs: u64,
    /// A player resigns at this ply.
    #[arg(long, default_value_t = 60)]
    max_plies: u32,
    /// Seconds into the arena when the organiser's node is killed (SIGKILL): the arena
    /// then runs on three nodes of its own (needs --damka-bin; --nodes is ignored),
    /// players on nodes 2 and 3, and what it kept is checked against the archive.
    #[arg(long)]
    kill_organiser_at: Option<u64>,
}

#[derive(Debug, Args)]
struct ChaosArgs {
    /// Games played at once.
    #[arg(long, default_value_t = 300)]
    games: usize,
    /// The game and clock (long enough not to fall during the run).
    #[arg(long, default_value = "russian 10+5")]
    game: String,
    /// Think time per move in ms.
    #[arg(long, default_value_t = 700)]
    think_ms: u64,
    /// Random extra think time, 0..=this ms.
    #[arg(long, default_value_t = 600)]
    jitter_ms: u64,
    /// Pair starts spread over this many seconds.
    #[arg(long, default_value_t = 5.0)]
    ramp_secs: f64,
    /// Seconds into play when node 3 of 3 is killed (SIGKILL).
    #[arg(long, default_value_t = 15)]
    kill_at: u64,
    /// Seconds into play when Redis is killed and started again, empty.
    #[arg(long, default_value_t = 30)]
    redis_at: u64,
    /// A player resigns at this ply.
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
}

#[derive(Debug, Args)]
struct BotapiArgs {
    /// Games played at once (over each of the two ways).
    #[arg(long, default_value_t = 50)]
    games: usize,
    /// The game and clock (chess; whole seconds).
    #[arg(long, default_value = "chess 5+3")]
    game: String,
    /// Think time per move in ms.
    #[arg(long, default_value_t = 950)]
    think_ms: u64,
    /// Random extra think time, 0..=this ms.
    #[arg(long, default_value_t = 100)]
    jitter_ms: u64,
    /// Pair starts spread over this many seconds.
    #[arg(long, default_value_t = 5.0)]
    ramp_secs: f64,
    /// A player resigns at this ply.
    #[arg(long, default_value_t = 300)]
    max_plies: u32,
}

#[derive(Debug, Args)]
struct ConnArgs {
    /// Connections to open.
    #[arg(long)]
    connections: Option<usize>,
}

/// Per-scenario defaults: games, spectators, think, jitter, pairing, ramp, duration,
/// games per pair.
struct PlayDefaults {
    games: usize,
    spectators: usize,
    think_ms: u64,
    jitter_ms: u64,
    pairing: PairingMode,
    ramp_secs: f64,
    duration: u64,
    games_per_pair: Option<u32>,
}

fn play_plan(name: &str, a: &PlayArgs, g: &Global) -> Result<PlayPlan> {
    let d = match name {
        "saturate" => PlayDefaults {
            games: 50,
            spectators: 0,
            think_ms: 0,
            jitter_ms: 0,
            pairing: PairingMode::Mix,
            ramp_secs: 2.0,
            duration: 30,
            games_per_pair: None,
        },
        "burst" => PlayDefaults {
            games: 1000,
            spectators: 0,
            think_ms: 1000,
            jitter_ms: 200,
            pairing: PairingMode::Pool,
            ramp_secs: 0.0,
            duration: 15,
            games_per_pair: Some(1),
        },
        "fanout" => PlayDefaults {
            games: 1,
            spectators: 1000,
            think_ms: 1000,
            jitter_ms: 0,
            pairing: PairingMode::Seek,
            ramp_secs: 0.0,
            duration: 60,
            games_per_pair: None,
        },
        _ => PlayDefaults {
            games: 100,
            spectators: 0,
            think_ms: 950,
            jitter_ms: 100,
            pairing: PairingMode::Mix,
            ramp_secs: 10.0,
            duration: 60,
            games_per_pair: None,
        },
    };
    let mix = if a.mix.is_empty() {
        default_mix()
    } else {
        a.mix
            .iter()
            .map(|s| parse_mix_entry(s).map_err(anyhow::Error::msg))
            .collect::<Result<Vec<_>>>()?
    };
    let mut mix = mix;
    if name == "fanout" && a.mix.is_empty() {
        // A long game with a clock that does not fall at one move per second.
        mix = vec![parse_mix_entry("chess 10+5").map_err(anyhow::Error::msg)?];
    }
    Ok(PlayPlan {
        games: a.games.unwrap_or(d.games),
        spectators: a.spectators.unwrap_or(d.spectators),
        think: Think {
            base_ms: a.think_ms.unwrap_or(d.think_ms),
            jitter_ms: a.jitter_ms.unwrap_or(d.jitter_ms),
        },
        mix,
        pairing: a.pairing.unwrap_or(d.pairing),
        ramp: Duration::from_secs_f64(a.ramp_secs.unwrap_or(d.ramp_secs).max(0.0)),
        duration: Duration::from_secs(g.duration.unwrap_or(d.duration)),
        max_plies: a.max_plies,
        games_per_pair: a.games_per_pair.or(d.games_per_pair),
        spread: a.spread,
        computer_games: a.computer_games,
        computer: {
            let (variant, time_control) =
                parse_mix_entry(&a.computer_game).map_err(anyhow::Error::msg)?;
            Some(loadtest::computer::ComputerPlan {
                variant,
                time_control,
                level: a.computer_level,
            })
        },
    })
}

fn arena_plan(a: &ArenaArgs) -> Result<ArenaPlan> {
    let (variant, time_control) = parse_mix_entry(&a.game).map_err(anyhow::Error::msg)?;
    if a.length_secs < 10 {
        bail!("--length-secs: an arena lasts at least 10 s");
    }
    // The server pairs only while a game's estimated length is left
    // (`shared::arena::pairing_open`): a shorter arena would pair nobody at all.
    let game_ms = shared::arena::estimated_game_ms(time_control);
    if a.length_secs * 1000 <= game_ms {
        bail!(
            "--length-secs: pairing stops {} s before the end for {}, so an arena of {} s \
             pairs nobody; give more than {} s",
            game_ms / 1000,
            a.game,
            a.length_secs,
            game_ms / 1000
        );
    }
    if let Some(at) = a.kill_organiser_at
        && at * 1000 >= a.length_secs * 1000 - game_ms
    {
        eprintln!(
            "note: pairing stops {} s into the arena, before the kill at {at} s: no game \
             can start after the kill",
            (a.length_secs * 1000 - game_ms) / 1000
        );
    }
    Ok(ArenaPlan {
        players: a.players,
        variant,
        time_control,
        think: Think {
            base_ms: a.think_ms,
            jitter_ms: a.jitter_ms,
        },
        // Joining is one message per bot; give the arena actor time to take them all.
        lead: Duration::from_secs(a.lead_secs.unwrap_or(3 + a.players as u64 / 1000)),
        length: Duration::from_secs(a.length_secs),
        max_plies: a.max_plies,
    })
}

fn chaos_plan(a: &ChaosArgs, g: &Global) -> Result<ChaosPlan> {
    let (variant, time_control) = parse_mix_entry(&a.game).map_err(anyhow::Error::msg)?;
    let duration = g.duration.unwrap_or(45);
    if a.kill_at >= a.redis_at || a.redis_at >= duration {
        bail!("chaos: expected --kill-at < --redis-at < --duration");
    }
    Ok(ChaosPlan {
        games: a.games,
        variant,
        time_control,
        think: Think {
            base_ms: a.think_ms,
            jitter_ms: a.jitter_ms,
        },
        ramp: Duration::from_secs_f64(a.ramp_secs.max(0.0)),
        duration: Duration::from_secs(duration),
        kill_at: Duration::from_secs(a.kill_at),
        redis_at: Duration::from_secs(a.redis_at),
        max_plies: a.max_plies,
    })
}

/// The chaos scenario (no baseline: what it measures is losses, not speed).
async fn run_chaos(g: &Global, a: &ChaosArgs, common: &Common) -> Result<()> {
    let plan = chaos_plan(a, g)?;
    let Some(bin) = &g.damka_bin else {
        bail!("chaos starts its own nodes: give --damka-bin");
    };
    eprintln!("running chaos against three damka nodes...");
    let report = chaos::chaos(bin, &plan, common).await?;
    let settings = serde_json::json!({ "common": common, "plan": plan });
    let comparison = Comparison::new("chaos", settings, Some(report), None);
    println!("{}", comparison.table());
    if let Some(path) = &g.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&comparison)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Steady play at the arena's number of games, clock and think time: the baseline the
/// arena's move round trip is compared with.
fn steady_like(plan: &ArenaPlan, g: &Global) -> PlayPlan {
    PlayPlan {
        games: plan.players / 2,
        spectators: 0,
        think: plan.think,
        mix: vec![(plan.variant, plan.time_control)],
        // Any clock has seeks; pools exist only for the configured ones.
        pairing: PairingMode::Seek,
        ramp: Duration::from_secs(1),
        duration: Duration::from_secs(g.duration.unwrap_or(plan.length.as_secs().min(60))),
        max_plies: plan.max_plies,
        games_per_pair: None,
        spread: Spread::Bot,
        computer_games: 0,
        computer: None,
    }
}

/// The games both halves of the Bot API scenario play: one plan, so that variant,
/// clock, think time, ramp and length are the same by construction.
fn botapi_plan(a: &BotapiArgs, g: &Global) -> Result<PlayPlan> {
    Ok(PlayPlan {
        games: a.games,
        spectators: 0,
        think: Think {
            base_ms: a.think_ms,
            jitter_ms: a.jitter_ms,
        },
        mix: vec![parse_mix_entry(&a.game).map_err(anyhow::Error::msg)?],
        // Any clock has seeks; pools exist only for the configured ones.
        pairing: PairingMode::Seek,
        ramp: Duration::from_secs_f64(a.ramp_secs.max(0.0)),
        duration: Duration::from_secs(g.duration.unwrap_or(60)),
        max_plies: a.max_plies,
        games_per_pair: None,
        spread: Spread::Bot,
        computer_games: 0,
        computer: None,
    })
}

/// The Bot API scenario: the games over HTTP, then the same games over the WebSocket on
/// the same node(s); the table's ratios are HTTP / WebSocket.
async fn run_botapi(g: &Global, a: &BotapiArgs, common: &Common) -> Result<()> {
    let plan = botapi_plan(a, g)?;
    let settings = serde_json::json!({ "common": common, "plan": plan });
    let nodes = damka_nodes(g, "botapi").await?;
    eprintln!(
        "running {} games over the Bot API against damka...",
        plan.games
    );
    let mut http = botapi::play(&nodes.backend, &plan, common).await?;
    http.backend = "bot api".into();
    eprintln!(
        "running {} games over the WebSocket against damka...",
        plan.games
    );
    let mut ws = run::play(&nodes.backend, &plan, common, "steady").await?;
    ws.backend = "websocket".into();
    drop(nodes);
    let comparison = Comparison::new("botapi", settings, Some(http), Some(ws));
    println!("{}", comparison.table());
    if let Some(path) = &g.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&comparison)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the runtime")?;
    if let Scenario::Relay {
        workers,
        read_buffer,
        redis,
        prefix,
    } = cli.scenario
    {
        drop(runtime);
        let link = redis
            .zip(prefix)
            .map(|(url, prefix)| relay::LinkConfig { url, prefix });
        return serve_relay(workers, read_buffer, link);
    }
    runtime.block_on(run_cli(cli))
}

fn serve_relay(
    workers: usize,
    read_buffer: Option<usize>,
    link: Option<relay::LinkConfig>,
) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers.max(1))
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("relay listening on {}", listener.local_addr()?);
        let (_stop, stop_rx) = tokio::sync::oneshot::channel();
        relay::serve(listener, stop_rx, read_buffer, link.as_ref()).await?;
        Ok(())
    })
}

/// The damka side of a run: nodes we started (kept alive) or were given.
struct DamkaNodes {
    backend: SystemUnderTest,
    _children: Vec<spawn::Spawned>,
    /// The started nodes' database, removed after the run.
    _data: Option<spawn::ScratchDir>,
}

async fn damka_nodes(g: &Global, scenario: &str) -> Result<DamkaNodes> {
    if let Some(bin) = &g.damka_bin {
        let count = g
            .nodes
            .unwrap_or(if scenario == "multinode" { 2 } else { 1 });
        let secret: String = (0..32).map(|_| fastrand::alphanumeric()).collect();
        let mut extra: Vec<(String, String)> = Vec::new();
        if scenario == "saturate" {
            // Bots with no think time exceed the default 20 messages/s per connection.
            extra.push(("DAMKA_WS__RATE_PER_SEC".into(), "100000".into()));
            extra.push(("DAMKA_WS__RATE_BURST".into(), "100000".into()));
        }
        // The started nodes' database, of this run alone (and removed after it): a
        // default node keeps its live games in it, and a node started on the last
        // run's database would take up that run's games, killed mid-play, again.
        let dir = std::env::temp_dir().join(format!(
            "damka-lt-{scenario}-{}-{}",
            std::process::id(),
            fastrand::u32(..)
        ));
        let dir = spawn::ScratchDir::new(dir)?;
        let sqlite = dir.0.join("damka.sqlite");
        extra.push((
            "DAMKA_DATABASE__URL".into(),
            format!("sqlite://{}", sqlite.display()),
        ));
        if scenario == "botapi" {
            // Every bot registers an account from a few source addresses.
            extra.push((
                "DAMKA_ACCOUNTS__REGISTER_PER_ADDRESS_PER_HOUR".into(),
                "1000000".into(),
            ));
        }
        let data = Some(dir);
        for kv in &g.damka_env {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("--damka-env `{kv}`: expected KEY=VALUE"))?;
            extra.push((k.into(), v.into()));
        }
        let mut children = Vec::new();
        for _ in 0..count {
            children.push(spawn::damka(bin, &secret, &extra).await?);
        }
        let backend = SystemUnderTest::Damka {
            nodes: children.iter().map(|c| c.target).collect(),
            pids: children.iter().map(|c| c.pid).collect(),
            fresh: true,
        };
        return Ok(DamkaNodes {
            backend,
            _children: children,
            _data: data,
        });
    }
    let nodes = g
        .url
        .iter()
        .map(|u| Target::parse(u))
        .collect::<Result<Vec<_>, _>>()?;
    let pids = if g.server_pid.is_empty() {
        let mut pids = Vec::new();
        for n in &nodes {
            match procmem::pid_listening_on(n.addr.port())? {
                Some(pid) if !pids.contains(&pid) => pids.push(pid),
                Some(_) => {}
                None => eprintln!(
                    "note: no process found listening on {}; server memory not measured",
                    n.authority()
                ),
            }
        }
        pids
    } else {
        g.server_pid.clone()
    };
    if scenario == "saturate" {
        eprintln!(
            "note: saturation needs the node's rate limit raised (DAMKA_WS__RATE_PER_SEC, DAMKA_WS__RATE_BURST) or bots are closed with 1008"
        );
    }
    Ok(DamkaNodes {
        backend: SystemUnderTest::Damka {
            nodes,
            pids,
            fresh: false,
        },
        _children: Vec::new(),
        _data: None,
    })
}

enum RelayRun {
    InProcess(relay::Relay),
    Children(Vec<spawn::Spawned>),
}

/// Starts the relay: in this process, or `--relay-nodes` child processes (linked
/// through Redis under a prefix of the run's own when there are several).
async fn start_relay(g: &Global) -> Result<(RelayRun, SystemUnderTest)> {
    if !g.relay_process && g.relay_nodes <= 1 {
        let r = relay::Relay::spawn(g.relay_workers, g.relay_read_buffer, None)?;
        let backend = SystemUnderTest::Relay {
            targets: vec![Target::from_addr(r.addr())?],
            pids: Vec::new(),
        };
        return Ok((RelayRun::InProcess(r), backend));
    }
    let link = (g.relay_nodes > 1).then(|| relay::LinkConfig {
        url: g.relay_redis.clone(),
        prefix: format!(
            "loadtest:relay:{}:{}",
            std::process::id(),
            fastrand::u64(..)
        ),
    });
    let mut children = Vec::new();
    for _ in 0..g.relay_nodes.max(1) {
        children.push(spawn::relay(g.relay_workers, g.relay_read_buffer, link.as_ref()).await?);
    }
    let backend = SystemUnderTest::Relay {
        targets: children.iter().map(|c| c.target).collect(),
        pids: children.iter().map(|c| c.pid).collect(),
    };
    Ok((RelayRun::Children(children), backend))
}

async fn run_one(
    backend: &SystemUnderTest,
    scenario: &Scenario,
    name: &str,
    g: &Global,
    common: &Common,
) -> Result<(RunReport, serde_json::Value)> {
    Ok(match scenario {
        Scenario::Idle(a) | Scenario::Storm(a) => {
            let plan = ConnPlan {
                connections: a
                    .connections
                    .unwrap_or(if name == "idle" { 10_000 } else { 5_000 }),
                hold: Duration::from_secs(g.duration.unwrap_or(if name == "idle" {
                    30
                } else {
                    1
                })),
            };
            (
                run::connections(backend, &plan, common, name).await?,
                serde_json::to_value(&plan)?,
            )
        }
        Scenario::Steady(a)
        | Scenario::Saturate(a)
        | Scenario::Burst(a)
        | Scenario::Fanout(a)
        | Scenario::Multinode(a) => {
            let plan = play_plan(name, a, g)?;
            (
                run::play(backend, &plan, common, name).await?,
                serde_json::to_value(&plan)?,
            )
        }
        Scenario::Chaos(_) => bail!("chaos runs on its own nodes"),
        Scenario::Botapi(_) => bail!("botapi runs its own comparison"),
        Scenario::Arena(a) => {
            let plan = arena_plan(a)?;
            (
                arena::arena(backend, &plan, common).await?,
                serde_json::to_value(&plan)?,
            )
        }
        Scenario::Relay { .. } => bail!("not a scenario"),
    })
}

/// The arena on three nodes of its own, its organiser's node killed at `kill_at` (no
/// baseline: what it measures is what the arena kept).
async fn run_arena_kill(
    g: &Global,
    plan: &ArenaPlan,
    kill_at: Duration,
    common: &Common,
    settings: serde_json::Value,
) -> Result<()> {
    let Some(bin) = &g.damka_bin else {
        bail!("--kill-organiser-at starts its own nodes: give --damka-bin");
    };
    if kill_at >= plan.length {
        bail!("--kill-organiser-at: within the arena's --length-secs");
    }
    let mut extra = Vec::new();
    for kv in &g.damka_env {
        let (k, v) = kv
            .split_once('=')
            .with_context(|| format!("--damka-env `{kv}`: expected KEY=VALUE"))?;
        extra.push((k.to_string(), v.to_string()));
    }
    eprintln!("running the arena on three damka nodes, its organiser killed...");
    let report = arena_kill::arena_kill(bin, plan, kill_at, common, &extra).await?;
    let comparison = Comparison::new("arena-kill", settings, Some(report), None);
    println!("{}", comparison.table());
    if let Some(path) = &g.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&comparison)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// The arena scenario, then steady play at the same number of games on fresh nodes.
async fn run_arena(g: &Global, a: &ArenaArgs, common: &Common) -> Result<()> {
    let plan = arena_plan(a)?;
    let mut settings = serde_json::json!({ "common": common, "plan": plan });
    if let Some(at) = a.kill_organiser_at {
        return run_arena_kill(g, &plan, Duration::from_secs(at), common, settings).await;
    }
    let nodes = damka_nodes(g, "arena").await?;
    eprintln!("running arena against damka...");
    let mut report = arena::arena(&nodes.backend, &plan, common).await?;
    report.backend = "arena".into();
    drop(nodes);
    let baseline = if g.no_baseline {
        None
    } else {
        let steady = steady_like(&plan, g);
        settings["steady"] = serde_json::to_value(&steady)?;
        let nodes = damka_nodes(g, "steady").await?;
        eprintln!("running steady at the same number of games against damka...");
        let mut r = run::play(&nodes.backend, &steady, common, "steady").await?;
        r.backend = "steady".into();
        Some(r)
    };
    let comparison = Comparison::new("arena", settings, Some(report), baseline);
    println!("{}", comparison.table());
    if let Some(path) = &g.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&comparison)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

async fn run_cli(cli: Cli) -> Result<()> {
    let g = &cli.global;
    let name = match &cli.scenario {
        Scenario::Steady(_) => "steady",
        Scenario::Saturate(_) => "saturate",
        Scenario::Burst(_) => "burst",
        Scenario::Fanout(_) => "fanout",
        Scenario::Multinode(_) => "multinode",
        Scenario::Idle(_) => "idle",
        Scenario::Storm(_) => "storm",
        Scenario::Arena(_) => "arena",
        Scenario::Chaos(_) => "chaos",
        Scenario::Botapi(_) => "botapi",
        Scenario::Relay { .. } => bail!("not a scenario"),
    };
    let common = Common {
        connect_parallel: g.connect_parallel,
        sources: g.sources,
        seed: g.seed,
        reserve_ports: g.reserve_ports,
    };
    match &cli.scenario {
        Scenario::Arena(a) => return run_arena(g, a, &common).await,
        Scenario::Chaos(a) => return run_chaos(g, a, &common).await,
        Scenario::Botapi(a) => return run_botapi(g, a, &common).await,
        _ => {}
    }
    let mut settings = serde_json::json!({ "common": common });
    let damka = if g.relay_only {
        None
    } else {
        let nodes = damka_nodes(g, name).await?;
        eprintln!("running {name} against damka...");
        let (report, plan) = run_one(&nodes.backend, &cli.scenario, name, g, &common).await?;
        settings["plan"] = plan;
        drop(nodes);
        Some(report)
    };
    let relay = if g.no_baseline {
        None
    } else {
        let (relay, backend) = start_relay(g).await?;
        eprintln!("running {name} against the relay...");
        let (report, plan) = run_one(&backend, &cli.scenario, name, g, &common).await?;
        settings["plan"] = plan;
        match relay {
            RelayRun::InProcess(r) => tokio::task::spawn_blocking(move || drop(r)).await?,
            RelayRun::Children(children) => {
                for c in children {
                    c.stop().await;
                }
            }
        }
        Some(report)
    };
    let comparison = Comparison::new(name, settings, damka, relay);
    println!("{}", comparison.table());
    if let Some(path) = &g.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&comparison)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
