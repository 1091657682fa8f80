//! The WebGPU instance, made when something first asks for `navigator.gpu`
//! (a capture, a window, a screenshot), never at start-up, and made quietly.
//!
//! deno_webgpu would start every backend at once: on Linux that is Vulkan
//! and OpenGL ES through EGL, and Mesa's EGL prints "XDG_RUNTIME_DIR is
//! invalid" on a headless machine each time it looks for a display. Limina
//! starts Vulkan alone and falls back to OpenGL ES only when Vulkan has no
//! adapter, with EGL's probing noise kept off stderr. A machine with neither
//! gets one clear line saying so, once; `DENO_WEBGPU_BACKEND` still picks
//! the backends by hand. Mesa's Vulkan device-selection layer looks for a
//! Wayland display too, and says so as loudly; see `quiet_display_probing`.

use std::time::Instant;

use deno_core::{op2, OpState};
use deno_webgpu::wgpu_core::global::Global;
use deno_webgpu::wgpu_types::{Backends, BackendOptions, Dx12BackendOptions, Dx12Compiler, InstanceDescriptor, InstanceFlags, MemoryBudgetThresholds};

/// What making the instance found; JS reads it to tell the first render's cost and failures.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuInstance {
  /// The backend whose adapters WebGPU offers ("vulkan", "gl", or the env's list); null with none.
  pub backend: Option<String>,
  /// Adapters found on it.
  pub adapters: usize,
  /// Milliseconds making the instance took (loading the driver, finding its adapters).
  pub init_ms: f64,
  /// Whether this call made it (false once made).
  pub made_now: bool,
  /// Why there is no adapter, when there is none.
  pub error: Option<String>,
}

/// Keeps Mesa's Vulkan device-selection layer (an implicit layer the Vulkan
/// loader adds to every instance) from probing for a Wayland display where
/// none can be reached: with no XDG_RUNTIME_DIR, libwayland prints
/// "XDG_RUNTIME_DIR is invalid or not set" each time the layer enumerates
/// devices. Without a display the layer has nothing to select by, and wgpu
/// picks its adapter itself. Call at start-up, before any thread exists (it
/// sets `NODEVICE_SELECT`, which the layer's manifest names as its off
/// switch); a user's own device-selection setting is left alone.
pub fn quiet_display_probing() {
  if std::env::var_os("NODEVICE_SELECT").is_some() || std::env::var_os("MESA_VK_DEVICE_SELECT").is_some() {
    return;
  }
  let runtime_dir = env("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
  let absolute_socket = env("WAYLAND_DISPLAY").is_some_and(|d| d.starts_with('/'));
  if !runtime_dir && !absolute_socket {
    std::env::set_var("NODEVICE_SELECT", "1");
  }
}

/// Makes this process's WebGPU instance if it has none yet, and says what it found.
#[op2]
#[serde]
pub fn op_render_gpu_instance(state: &mut OpState) -> GpuInstance {
  if let Some(made) = state.try_borrow::<GpuInstance>() {
    return GpuInstance { made_now: false, ..made.clone() };
  }
  let started = Instant::now();
  let (global, backend, adapters, error) = make_instance();
  let made = GpuInstance { backend, adapters, init_ms: started.elapsed().as_secs_f64() * 1000.0, made_now: true, error };
  if let Some(why) = &made.error {
    eprintln!("limina: {why}");
  }
  state.put::<deno_webgpu::Instance>(std::sync::Arc::new(global));
  state.put(made.clone());
  made
}

/// Whether WebGPU has been started in this process (nothing has rendered while false).
#[op2(fast)]
pub fn op_render_gpu_started(state: &mut OpState) -> bool {
  state.has::<deno_webgpu::Instance>()
}

/// Whether a driver WebGPU could start on is installed: a Vulkan driver
/// manifest where the Vulkan loader looks for one, or EGL (of the backends
/// `DENO_WEBGPU_BACKEND` names, when set). Found on disk,
/// without loading anything, so a process can offer rendering before it
/// renders; whether the driver then finds an adapter only the first render
/// can tell (and `op_render_gpu_instance` says).
#[op2(fast)]
pub fn op_render_gpu_installed() -> bool {
  gpu_installed()
}

pub fn gpu_installed() -> bool {
  let backends = std::env::var("DENO_WEBGPU_BACKEND").map_or(Backends::VULKAN | Backends::GL, |list| Backends::from_comma_list(&list));
  (backends.contains(Backends::VULKAN) && vulkan_driver_installed()) || (backends.contains(Backends::GL) && egl_installed())
}

fn env(name: &str) -> Option<String> {
  std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A driver manifest where the Vulkan loader looks (its Linux defaults), or one named by the environment.
fn vulkan_driver_installed() -> bool {
  if env("VK_DRIVER_FILES").is_some() || env("VK_ICD_FILENAMES").is_some() {
    return true;
  }
  let config = env("XDG_CONFIG_DIRS").unwrap_or_else(|| "/etc/xdg".to_owned());
  let data = env("XDG_DATA_DIRS").unwrap_or_else(|| "/usr/local/share:/usr/share".to_owned());
  let mut dirs: Vec<std::path::PathBuf> = config.split(':').chain(["/usr/local/etc", "/etc"]).chain(data.split(':')).map(|d| std::path::Path::new(d).join("vulkan/icd.d")).collect();
  if let Some(home) = env("XDG_DATA_HOME").or_else(|| env("HOME").map(|h| format!("{h}/.local/share"))) {
    dirs.push(std::path::Path::new(&home).join("vulkan/icd.d"));
  }
  dirs.iter().any(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| e.path().extension().is_some_and(|x| x == "json")))
}

fn egl_installed() -> bool {
  let multiarch = format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH);
  [multiarch.as_str(), "/usr/lib64", "/usr/lib", "/usr/local/lib"].iter().any(|d| std::path::Path::new(d).join("libEGL.so.1").exists())
}

fn descriptor(backends: Backends) -> InstanceDescriptor {
  // What deno_webgpu's own instance uses, but for the backends.
  InstanceDescriptor {
    backends,
    flags: InstanceFlags::from_build_config(),
    memory_budget_thresholds: MemoryBudgetThresholds { for_resource_creation: Some(97), for_device_loss: Some(99) },
    backend_options: BackendOptions {
      dx12: Dx12BackendOptions { shader_compiler: Dx12Compiler::Fxc, ..Default::default() },
      ..Default::default()
    },
    display: None,
  }
}

fn instance_with(backends: Backends) -> (Global, usize) {
  let global = Global::new("webgpu", descriptor(backends), None);
  let adapters = global.instance.enumerate_adapters(backends).len();
  (global, adapters)
}

fn make_instance() -> (Global, Option<String>, usize, Option<String>) {
  if let Ok(list) = std::env::var("DENO_WEBGPU_BACKEND") {
    let backends = Backends::from_comma_list(&list);
    let (global, adapters) = instance_with(backends);
    let error = (adapters == 0).then(|| format!("no WebGPU adapter on the backends DENO_WEBGPU_BACKEND={list} names: rendering is unavailable"));
    return (global, (adapters > 0).then_some(list), adapters, error);
  }
  let (vulkan, adapters) = instance_with(Backends::VULKAN);
  if adapters > 0 {
    return (vulkan, Some("vulkan".to_owned()), adapters, None);
  }
  let ((gl, adapters), noise) = quiet_stderr(|| instance_with(Backends::GL));
  if adapters > 0 {
    return (gl, Some("gl".to_owned()), adapters, None);
  }
  let detail = noise.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
  let error = format!(
    "no WebGPU adapter: Vulkan found none (a Vulkan driver, e.g. Mesa's lavapipe, renders without a GPU) and neither did OpenGL ES{}; rendering is unavailable",
    if detail.is_empty() { String::new() } else { format!(" ({detail})") }
  );
  (gl, None, 0, Some(error))
}

/// Runs `f` with stderr captured, and gives back what was written meanwhile
/// except the display probing noise, which is dropped: other lines (another
/// thread's) are written to stderr afterwards.
#[cfg(target_os = "linux")]
fn quiet_stderr<T>(f: impl FnOnce() -> T) -> (T, String) {
  use std::io::{Read, Seek, Write};
  use std::os::fd::FromRawFd;
  // SAFETY: plain descriptor calls; every descriptor opened here is closed or owned by a File.
  unsafe {
    let capture = libc::memfd_create(c"limina-stderr".as_ptr(), libc::MFD_CLOEXEC);
    let saved = libc::dup(2);
    if capture < 0 || saved < 0 || libc::dup2(capture, 2) < 0 {
      for fd in [capture, saved] {
        if fd >= 0 {
          libc::close(fd);
        }
      }
      return (f(), String::new());
    }
    let value = f();
    libc::dup2(saved, 2);
    libc::close(saved);
    let mut file = std::fs::File::from_raw_fd(capture);
    let mut text = String::new();
    let _ = file.rewind().and_then(|_| file.read_to_string(&mut text));
    let (noise, other): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| is_probe_noise(l));
    if !other.is_empty() {
      let _ = writeln!(std::io::stderr(), "{}", other.join("\n"));
    }
    (value, noise.join("\n"))
  }
}

#[cfg(not(target_os = "linux"))]
fn quiet_stderr<T>(f: impl FnOnce() -> T) -> (T, String) {
  (f(), String::new())
}

/// What EGL and the Wayland client print while looking for a display that a headless machine lacks.
fn is_probe_noise(line: &str) -> bool {
  line.contains("XDG_RUNTIME_DIR") || line.starts_with("libEGL ") || line.contains("MESA-LOADER") || line.contains("wayland")
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn an_installed_driver_is_found_on_disk() {
    // This machine renders on lavapipe, whose manifest is installed; the check must see it.
    if std::path::Path::new("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json").exists() {
      assert!(gpu_installed());
    }
  }

  #[test]
  fn display_probing_noise_is_recognised_and_nothing_else() {
    assert!(is_probe_noise("error: XDG_RUNTIME_DIR is invalid or not set in the environment."));
    assert!(is_probe_noise("libEGL warning: DRI2: failed to authenticate"));
    assert!(!is_probe_noise("limina: audio: no output device"));
  }

  #[cfg(target_os = "linux")]
  #[test]
  fn stderr_is_captured_only_while_f_runs() {
    // Written to the descriptor itself: the test harness captures eprintln!.
    let line = "error: XDG_RUNTIME_DIR is invalid or not set in the environment.\n";
    let (value, noise) = quiet_stderr(|| {
      unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
      7
    });
    assert_eq!(value, 7);
    assert_eq!(noise, "error: XDG_RUNTIME_DIR is invalid or not set in the environment.");
    // The descriptor is back: writing to it works (and is not captured).
    assert!(unsafe { libc::fcntl(2, libc::F_GETFD) } >= 0);
  }
}
