//! `hlamesh`: the command-line tool. `hlamesh fom check FILE...` loads and merges FOM modules
//! and prints a summary; `hlamesh fom show FILE... [--class NAME]` prints the class trees or one
//! class with everything it inherits. `hlamesh certs init` / `hlamesh certs issue NAME` manage a
//! lab CA for the certificate security mode (see `hlamesh_lrc::cli::certs`). `hlamesh status
//! [--json] [--watch]` lists the federations on the network, their members and time state, and
//! the nodes' peer RTTs (see `hlamesh_lrc::cli::status`). `hlamesh mom FEDERATION [--json]
//! [--watch]` joins the federation and lists its federates, their time state and publications
//! from the Management Object Model alone (see `hlamesh_lrc::cli::mom`).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

/// Output is collected and written once, so a closed pipe (`| head`) is not a panic.
static OUT: Mutex<String> = Mutex::new(String::new());

macro_rules! outln {
    ($($t:tt)*) => {{
        if let Ok(mut o) = OUT.lock() {
            let _ = writeln!(o, $($t)*);
        }
    }};
}

fn flush_out() {
    if let Ok(o) = OUT.lock() {
        let _ = std::io::stdout().write_all(o.as_bytes());
    }
}
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hlamesh_lrc::cli::certs::{self, CertsError, NodeName};
use hlamesh_lrc::cli::mom;
use hlamesh_lrc::cli::status::{self, StatusError};
use hlamesh_lrc::fom::{Fdd, FomError, FomModule, OrderType, ResolvedKind};
use hlamesh_lrc::handles::ObjectClassHandle;

#[derive(Debug, Parser)]
#[command(name = "hlamesh", version, about = "hlamesh distributed HLA RTI tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with FOM modules (IEEE 1516-2010 OMT XML).
    Fom {
        #[command(subcommand)]
        command: FomCommand,
    },
    /// Manage a lab certificate authority for the mesh's certificate security mode.
    Certs {
        #[command(subcommand)]
        command: CertsCommand,
    },
    /// List the federations on the network: members, logical time, GALT, flags, peer RTTs.
    Status(StatusArgs),
    /// Join a federation and show its federates, time state and publications from the MOM.
    Mom(MomArgs),
}

/// Where the monitors (`status`, `mom`) find the federation: the node configuration and the
/// flags that override it.
#[derive(Debug, clap::Args)]
struct NetArgs {
    /// Node configuration file (TOML, as the federates use; `HLAMESH_*` variables apply after it).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Interface address (overrides the configuration).
    #[arg(long)]
    interface: Option<std::net::Ipv4Addr>,
    /// Discovery port (overrides the configuration).
    #[arg(long)]
    discovery_port: Option<u16>,
    /// Data port (overrides the configuration).
    #[arg(long)]
    data_port: Option<u16>,
    /// Discovery multicast group (overrides the configuration).
    #[arg(long)]
    discovery_group: Option<std::net::Ipv4Addr>,
}

impl NetArgs {
    /// The configuration file (or the defaults), then the `HLAMESH_*` variables, then these flags.
    fn config(&self) -> Result<hlamesh_transport::TransportConfig, StatusError> {
        let mut cfg = status::load_config(self.config.as_deref())?;
        if let Some(i) = self.interface {
            cfg.interface = i;
        }
        if let Some(p) = self.discovery_port {
            cfg.discovery_port = p;
        }
        if let Some(p) = self.data_port {
            cfg.data_port = p;
        }
        if let Some(g) = self.discovery_group {
            cfg.discovery_group = g;
        }
        Ok(cfg)
    }
}

#[derive(Debug, clap::Args)]
struct MomArgs {
    /// The federation execution to watch.
    federation: String,
    /// Print JSON (one object per report) instead of a table.
    #[arg(long)]
    json: bool,
    /// Refresh every --interval seconds until interrupted.
    #[arg(long)]
    watch: bool,
    /// Seconds between reports with --watch.
    #[arg(long, default_value_t = 2.0)]
    interval: f64,
    /// How long to wait for the MOM's answers to each report's requests, milliseconds.
    #[arg(long, default_value_t = 1000)]
    wait_ms: u64,
    /// The monitor's federate name (unique in the federation).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    net: NetArgs,
}

/// Runs the MOM monitor (one report, or one every --interval with --watch).
fn mom_main(a: MomArgs) -> Result<(), String> {
    let cfg = a.net.config().map_err(|e| e.to_string())?;
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| format!("hlamesh-mom-{}", std::process::id()));
    let mut monitor =
        mom::MomMonitor::start(cfg, &a.federation, &name).map_err(|e| e.to_string())?;
    let wait = std::time::Duration::from_millis(a.wait_ms);
    loop {
        let report = monitor.report(wait).map_err(|e| e.to_string())?;
        let text = if a.json {
            serde_json::to_string(&report).unwrap_or_default()
        } else {
            report.to_text()
        };
        let mut o = std::io::stdout().lock();
        if a.watch && !a.json && std::io::IsTerminal::is_terminal(&o) {
            let _ = write!(o, "\x1b[2J\x1b[H");
        }
        if writeln!(o, "{text}").and_then(|()| o.flush()).is_err() || !a.watch {
            break;
        }
        drop(o);
        std::thread::sleep(std::time::Duration::from_secs_f64(a.interval.max(0.1)));
    }
    monitor.stop().map_err(|e| e.to_string())
}

#[derive(Debug, clap::Args)]
struct StatusArgs {
    /// Print JSON (one object per report) instead of a table.
    #[arg(long)]
    json: bool,
    /// Refresh every --interval seconds until interrupted.
    #[arg(long)]
    watch: bool,
    /// Seconds between reports with --watch.
    #[arg(long, default_value_t = 2.0)]
    interval: f64,
    /// How long to listen for nodes, and then for their answers, milliseconds.
    #[arg(long, default_value_t = 2000)]
    listen_ms: u64,
    #[command(flatten)]
    net: NetArgs,
}

/// Runs the monitor; `Ok(false)` when the (last) report found nodes whose beacons failed
/// authentication (wrong secret or certificate), which makes the exit status non-zero.
fn status_main(a: StatusArgs) -> Result<bool, StatusError> {
    let cfg = a.net.config()?;
    let mut monitor = status::Monitor::start(cfg)?;
    let listen = std::time::Duration::from_millis(a.listen_ms);
    loop {
        let report = monitor.report(listen);
        let text = if a.json {
            serde_json::to_string(&report).unwrap_or_default()
        } else {
            report.to_text()
        };
        let mut o = std::io::stdout().lock();
        if a.watch && !a.json && std::io::IsTerminal::is_terminal(&o) {
            // Clear the terminal and home the cursor: a live view (not in a log or a pipe).
            let _ = write!(o, "\x1b[2J\x1b[H");
        }
        if writeln!(o, "{text}").and_then(|()| o.flush()).is_err() {
            return Ok(true); // Closed pipe: the reader is gone.
        }
        drop(o);
        if let Some(why) = &report.refused
            && a.json
        {
            // The JSON carries it too; a person reading the terminal should not miss it.
            eprintln!("warning: {why}");
        }
        if !a.watch {
            return Ok(report.refused.is_none());
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(a.interval.max(0.1)));
    }
}

#[derive(Debug, Subcommand)]
enum CertsCommand {
    /// Create a lab CA: ca.pem (0644) and ca.key (0600).
    Init {
        /// Certificate directory [default: $XDG_CONFIG_HOME/hlamesh/certs or ~/.config/hlamesh/certs].
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Replace an existing CA (certificates it issued stop being trusted).
        #[arg(long)]
        force: bool,
    },
    /// Issue NAME.pem (0644) and NAME.key (0600) signed by the lab CA; print the config snippet.
    Issue {
        /// Node name: one lowercase DNS label (a-z, 0-9, '-').
        name: NodeName,
        /// Certificate directory holding the CA [default: as for init].
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Replace this node's existing certificate and key.
        #[arg(long)]
        force: bool,
    },
}

fn certs_main(command: CertsCommand) -> Result<String, CertsError> {
    let dir = |d: Option<PathBuf>| d.map_or_else(certs::default_dir, Ok);
    match command {
        CertsCommand::Init { dir: d, force } => Ok(certs::init(&dir(d)?, force)?.describe()),
        CertsCommand::Issue {
            name,
            dir: d,
            force,
        } => certs::issue(&dir(d)?, &name, force)?.describe(),
    }
}

#[derive(Debug, Subcommand)]
enum FomCommand {
    /// Load and merge modules after the MIM; print counts and the FDD digest.
    Check {
        /// FOM module files, merged in this order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// A replacement MIM (default: the standard MIM, always present).
        #[arg(long)]
        mim: Option<PathBuf>,
    },
    /// Print the class trees, or one class with its inherited attributes/parameters.
    Show {
        /// FOM module files, merged in this order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// An object or interaction class (qualified or unqualified name).
        #[arg(long)]
        class: Option<String>,
        /// A replacement MIM.
        #[arg(long)]
        mim: Option<PathBuf>,
    },
}

fn load(files: &[PathBuf], mim: Option<&PathBuf>) -> Result<Fdd, FomError> {
    let modules = files
        .iter()
        .map(FomModule::from_file)
        .collect::<Result<Vec<_>, _>>()?;
    match mim {
        Some(m) => Fdd::load_with_mim(FomModule::from_file(m)?, &modules),
        None => Fdd::load(&modules),
    }
}

fn check(fdd: &Fdd) {
    let modules: Vec<&str> = fdd.module_designators().collect();
    outln!("merged {} modules: {}", modules.len(), modules.join(", "));
    outln!(
        "object classes: {}, attributes: {}, interaction classes: {}, parameters: {}, \
         data types: {}, dimensions: {}, transportations: {}",
        fdd.object_classes().len(),
        fdd.attributes().len(),
        fdd.interaction_classes().len(),
        fdd.parameters().len(),
        fdd.data_types().len(),
        fdd.dimensions().len(),
        fdd.transportations().len(),
    );
    outln!("FDD digest: {}", fdd.digest());
}

fn type_summary(fdd: &Fdd, id: Option<hlamesh_lrc::fom::TypeId>) -> String {
    let Some(t) = id.and_then(|id| fdd.data_types().get(id)) else {
        return "NA".into();
    };
    let what = match &t.kind {
        ResolvedKind::Basic { .. } => "basic".to_string(),
        ResolvedKind::Simple { representation } => {
            format!("simple on {}", name_of(fdd, *representation))
        }
        ResolvedKind::Enumerated {
            representation,
            enumerators,
            ..
        } => format!(
            "enumeration of {} on {}",
            enumerators.len(),
            name_of(fdd, *representation)
        ),
        ResolvedKind::Array {
            element, layout, ..
        } => format!("array {layout:?} of {}", name_of(fdd, *element)),
        ResolvedKind::FixedRecord { fields, .. } => format!("record of {} fields", fields.len()),
        ResolvedKind::VariantRecord { alternatives, .. } => {
            format!("variant record, {} alternatives", alternatives.len())
        }
    };
    format!("{} ({what}, boundary {})", t.name, t.boundary)
}

fn name_of(fdd: &Fdd, id: hlamesh_lrc::fom::TypeId) -> &str {
    fdd.data_types().get(id).map_or("?", |t| t.name.as_str())
}

fn order(o: OrderType) -> &'static str {
    o.name()
}

fn print_object_tree(fdd: &Fdd, h: ObjectClassHandle, depth: usize) {
    let Ok(c) = fdd.object_class(h) else { return };
    outln!(
        "{:indent$}{} ({}) [{} attributes]",
        "",
        c.name,
        c.handle,
        c.attributes.len(),
        indent = depth * 2
    );
    for ch in &c.children {
        print_object_tree(fdd, *ch, depth + 1);
    }
}

fn print_interaction_tree(
    fdd: &Fdd,
    h: hlamesh_lrc::handles::InteractionClassHandle,
    depth: usize,
) {
    let Ok(c) = fdd.interaction_class(h) else {
        return;
    };
    outln!(
        "{:indent$}{} ({}) [{} parameters]",
        "",
        c.name,
        c.handle,
        c.parameters.len(),
        indent = depth * 2
    );
    for ch in &c.children {
        print_interaction_tree(fdd, *ch, depth + 1);
    }
}

/// `{A, B}`: the names of a dimension set.
fn dimension_set(fdd: &Fdd, dims: &[hlamesh_lrc::handles::DimensionHandle]) -> String {
    let names: Vec<&str> = dims
        .iter()
        .map(|d| fdd.dimension_name(*d).unwrap_or("?"))
        .collect();
    format!("{{{}}}", names.join(", "))
}

/// The FDD's dimensions with their upper bounds, default ranges and normalization, then every
/// attribute and interaction class that has a dimension set.
fn print_dimensions(fdd: &Fdd) {
    use hlamesh_lrc::fom::DefaultRange;
    outln!("dimensions:");
    for d in fdd.dimensions() {
        let x = &d.decl;
        let bound = match x.upper_bound {
            Some(b) => b.to_string(),
            None => format!("none given (RTI bound {})", u64::MAX),
        };
        let default = match x.default_range {
            DefaultRange::Excluded => "Excluded".to_string(),
            DefaultRange::Range { lower, upper } => format!("[{lower}..{upper})"),
        };
        outln!(
            "  {} ({}) upper bound {bound}, default range {default}, normalization: {}",
            x.name,
            d.handle,
            x.normalization.as_deref().unwrap_or("none given")
        );
    }
    outln!("dimension sets:");
    for a in fdd.attributes() {
        if !a.dimensions.is_empty() {
            outln!(
                "  attribute {}.{} {}",
                fdd.object_class_name(a.class).unwrap_or("?"),
                a.name,
                dimension_set(fdd, &a.dimensions)
            );
        }
    }
    for c in fdd.interaction_classes() {
        if !c.dimensions.is_empty() {
            outln!(
                "  interaction {} {}",
                c.qualified_name,
                dimension_set(fdd, &c.dimensions)
            );
        }
    }
}

fn show(fdd: &Fdd, class: Option<&str>) -> Result<(), String> {
    let Some(name) = class else {
        outln!("object classes:");
        print_object_tree(fdd, fdd.object_root(), 1);
        outln!("interaction classes:");
        print_interaction_tree(fdd, fdd.interaction_root(), 1);
        print_dimensions(fdd);
        return Ok(());
    };
    if let Ok(h) = fdd.object_class_handle(name) {
        let c = fdd.object_class(h).map_err(|e| e.to_string())?;
        outln!("object class {} (handle {})", c.qualified_name, c.handle);
        outln!("  first seen at {}", c.first_seen);
        outln!("  attributes (inherited first):");
        for a in fdd.available_attributes(h).map_err(|e| e.to_string())? {
            let attr = fdd.attribute(h, a).map_err(|e| e.to_string())?;
            let from = fdd.object_class_name(attr.class).unwrap_or("?");
            outln!(
                "    {:>4} {:<32} {}  [{}, {}, from {}]{}",
                attr.handle,
                attr.name,
                type_summary(fdd, attr.data_type),
                fdd.transportation_type_name(attr.transportation)
                    .unwrap_or("?"),
                order(attr.order),
                from,
                if attr.dimensions.is_empty() {
                    String::new()
                } else {
                    format!(" dimensions {}", dimension_set(fdd, &attr.dimensions))
                }
            );
        }
        return Ok(());
    }
    match fdd.interaction_class_handle(name) {
        Ok(h) => {
            let c = fdd.interaction_class(h).map_err(|e| e.to_string())?;
            outln!(
                "interaction class {} (handle {}) [{}, {}] dimensions {}",
                c.qualified_name,
                c.handle,
                fdd.transportation_type_name(c.transportation)
                    .unwrap_or("?"),
                order(c.order),
                dimension_set(fdd, &c.dimensions)
            );
            outln!("  parameters (inherited first):");
            for p in fdd.available_parameters(h).map_err(|e| e.to_string())? {
                let par = fdd.parameter(h, p).map_err(|e| e.to_string())?;
                outln!(
                    "    {:>4} {:<32} {}",
                    par.handle,
                    par.name,
                    type_summary(fdd, par.data_type)
                );
            }
            Ok(())
        }
        Err(e) => Err(format!("class {name}: {e}")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Mom(a) => match mom_main(a) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Status(a) => match status_main(a) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(3),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Certs { command } => match certs_main(command) {
            Ok(text) => {
                outln!("{text}");
                flush_out();
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Fom { command } => {
            let (files, mim, class) = match &command {
                FomCommand::Check { files, mim } => (files, mim.as_ref(), None),
                FomCommand::Show { files, mim, class } => (files, mim.as_ref(), class.as_deref()),
            };
            let fdd = match load(files, mim) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            for w in fdd.warnings() {
                eprintln!("warning: {w}");
            }
            match command {
                FomCommand::Check { .. } => check(&fdd),
                FomCommand::Show { .. } => {
                    if let Err(e) = show(&fdd, class) {
                        eprintln!("{e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            flush_out();
            ExitCode::SUCCESS
        }
    }
}
