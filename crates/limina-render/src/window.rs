//! The native window: a `winit` window on the host thread, pumped by the host
//! loop between frames. Its WebGPU surface backs a `GPUCanvasContext` that
//! Three.js draws into, and the host presents each drawn frame from Rust.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use deno_core::{op2, v8, OpState};
use deno_webgpu::canvas::{ContextData, GPUCanvasContext, SurfaceData};
use limina_ops::OpError;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::platform::pump_events::{EventLoopExtPumpEvents, PumpStatus};
use winit::platform::x11::EventLoopBuilderExtX11;
use winit::window::{Fullscreen, Window, WindowAttributes, WindowId};

#[derive(Debug, Clone)]
pub struct WindowOptions {
  pub title: String,
  pub width: u32,
  pub height: u32,
  pub fullscreen: bool,
}

/// Why the window asks the program to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
  CloseRequested,
  Escape,
  Destroyed,
}

/// The window in `OpState`, with its surface once JS asked for a context.
pub struct NativeWindow {
  event_loop: EventLoop<()>,
  app: WindowApp,
  /// Lives as long as the process: the surface (owned by a garbage-collected
  /// context) must never outlive the window it draws into.
  window: &'static Window,
  surface: Option<Surface>,
}

struct Surface {
  data: Rc<RefCell<SurfaceData>>,
  context: v8::Global<v8::Value>,
}

struct WindowApp {
  attributes: WindowAttributes,
  window: Option<Window>,
  error: Option<String>,
  close: Option<CloseReason>,
}

impl ApplicationHandler for WindowApp {
  fn resumed(&mut self, event_loop: &ActiveEventLoop) {
    // winit creates windows only from inside its callbacks; this is the first.
    if self.window.is_none() && self.error.is_none() {
      let mut attributes = self.attributes.clone();
      if attributes.fullscreen.is_some() {
        // Cover the monitor from the start: without a window manager to honour
        // the fullscreen hint, the window still fills the screen.
        if let Some(monitor) = event_loop.primary_monitor().or_else(|| event_loop.available_monitors().next()) {
          attributes = attributes.with_inner_size(monitor.size()).with_position(monitor.position());
        }
      }
      match event_loop.create_window(attributes) {
        Ok(window) => self.window = Some(window),
        Err(e) => self.error = Some(e.to_string()),
      }
    }
  }

  fn window_event(&mut self, _event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
    let reason = match event {
      WindowEvent::CloseRequested => CloseReason::CloseRequested,
      WindowEvent::Destroyed => CloseReason::Destroyed,
      WindowEvent::KeyboardInput { event, .. }
        if event.state == ElementState::Pressed && event.logical_key == Key::Named(NamedKey::Escape) =>
      {
        CloseReason::Escape
      }
      _ => return,
    };
    self.close.get_or_insert(reason);
  }
}

/// How long opening may wait for the display server to hand over the window.
const OPEN_LIMIT: Duration = Duration::from_secs(10);

impl NativeWindow {
  /// Opens the window (X11): fails with the reason when there is no display.
  pub fn open(options: &WindowOptions) -> Result<Self, String> {
    if std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty()) {
      return Err("cannot open a window: no X11 display (DISPLAY is not set); run on a desktop session or under xvfb-run".into());
    }
    let mut event_loop = EventLoop::builder()
      .with_any_thread(true)
      .build()
      .map_err(|e| format!("cannot open a window on X11 display {:?}: {e}", std::env::var("DISPLAY").unwrap_or_default()))?;
    let mut attributes = Window::default_attributes()
      .with_title(options.title.clone())
      .with_inner_size(PhysicalSize::new(options.width, options.height));
    if options.fullscreen {
      attributes = attributes.with_fullscreen(Some(Fullscreen::Borderless(None)));
    }
    let mut app = WindowApp { attributes, window: None, error: None, close: None };
    let deadline = Instant::now() + OPEN_LIMIT;
    while app.window.is_none() {
      if let Some(e) = app.error.take() {
        return Err(format!("cannot open a window: {e}"));
      }
      if let PumpStatus::Exit(code) = event_loop.pump_app_events(Some(Duration::from_millis(10)), &mut app) {
        return Err(format!("cannot open a window: the event loop exited with {code}"));
      }
      if Instant::now() > deadline {
        return Err(format!("cannot open a window: none appeared within {} s", OPEN_LIMIT.as_secs()));
      }
    }
    let window: &'static Window = Box::leak(Box::new(app.window.take().expect("checked above")));
    Ok(Self { event_loop, app, window, surface: None })
  }

  /// The drawable size in physical pixels.
  pub fn size(&self) -> (u32, u32) {
    let size = self.window.inner_size();
    (size.width, size.height)
  }

  /// The surface for `instance`, created once; JS asks through
  /// `op_render_window_context`.
  fn context(
    &mut self,
    scope: &mut v8::PinScope<'_, '_>,
    instance: deno_webgpu::Instance,
    canvas: v8::Global<v8::Object>,
  ) -> Result<v8::Global<v8::Value>, OpError> {
    if let Some(surface) = &self.surface {
      return Ok(surface.context.clone());
    }
    let handle_error = |e: raw_window_handle::HandleError| OpError::internal(format!("the window has no native handle: {e}"));
    let display = self.window.display_handle().map_err(handle_error)?.as_raw();
    let window = self.window.window_handle().map_err(handle_error)?.as_raw();
    // SAFETY: the handles belong to a window that lives as long as the process.
    let id = unsafe { instance.instance_create_surface(Some(display), window, None) }
      .map_err(|e| OpError::internal(format!("cannot create a WebGPU surface for the window: {e}")))?;
    let (width, height) = self.size();
    let data = Rc::new(RefCell::new(SurfaceData { width: width.max(1), height: height.max(1), id, instance }));
    let context = deno_webgpu::canvas::create(
      None,
      canvas,
      ContextData::Surface(data.clone()),
      scope,
      v8::undefined(scope).into(),
      "",
      "",
    )
    .map_err(|e| OpError::internal(format!("cannot create the window's WebGPU context: {e}")))?;
    self.surface = Some(Surface { data, context: context.clone() });
    Ok(context)
  }

  /// Handles pending window events: returns why the program should end, or
  /// reconfigures the surface when the window changed size.
  fn pump(&mut self, scope: &mut v8::PinScope<'_, '_>) -> Option<CloseReason> {
    if let PumpStatus::Exit(_) = self.event_loop.pump_app_events(Some(Duration::ZERO), &mut self.app) {
      self.app.close.get_or_insert(CloseReason::Destroyed);
    }
    if let Some(reason) = self.app.close {
      return Some(reason);
    }
    let (width, height) = self.size();
    if let Some(surface) = &self.surface {
      let resized = {
        let mut data = surface.data.borrow_mut();
        // A minimised window has no area: keep the last surface until it returns.
        let changed = width > 0 && height > 0 && (data.width, data.height) != (width, height);
        if changed {
          data.width = width;
          data.height = height;
        }
        changed
      };
      if resized {
        if let Some(context) = unwrap_context(scope, &surface.context) {
          context.resize(scope);
        }
      }
    }
    None
  }

  /// Presents the frame drawn since the last call, if any.
  fn present(&self, scope: &mut v8::PinScope<'_, '_>) -> Result<bool, String> {
    let Some(surface) = &self.surface else { return Ok(false) };
    let Some(context) = unwrap_context(scope, &surface.context) else { return Ok(false) };
    if context.current_texture.borrow().is_none() {
      return Ok(false);
    }
    let data = surface.data.borrow();
    data
      .instance
      .surface_present(data.id)
      .map_err(|e| format!("cannot present the frame: {e}"))?;
    // The next getCurrentTexture() acquires the next swapchain image.
    context.current_texture.borrow_mut().take();
    Ok(true)
  }
}

fn unwrap_context(
  scope: &mut v8::PinScope<'_, '_>,
  context: &v8::Global<v8::Value>,
) -> Option<deno_core::cppgc::UnsafePtr<GPUCanvasContext>> {
  let local = v8::Local::new(scope, context);
  deno_core::cppgc::try_unwrap_cppgc_object::<GPUCanvasContext>(scope, local)
}

/// The window's drawable size, or null when the program runs without one.
#[op2]
#[serde]
pub fn op_render_window_size(state: &OpState) -> Option<(u32, u32)> {
  state.try_borrow::<NativeWindow>().map(NativeWindow::size)
}

/// The window's `GPUCanvasContext`, bound to `canvas` (the object
/// `context.canvas` returns). WebGPU must have been initialised
/// (`navigator.gpu.requestAdapter()`) first.
#[op2]
pub fn op_render_window_context(
  state: &mut OpState,
  scope: &mut v8::PinScope<'_, '_>,
  #[scoped] canvas: v8::Global<v8::Object>,
) -> Result<v8::Global<v8::Value>, OpError> {
  let instance = state
    .try_borrow::<deno_webgpu::Instance>()
    .cloned()
    .ok_or_else(|| OpError::unavailable("request a WebGPU adapter before asking for the window's context"))?;
  let window = state
    .try_borrow_mut::<NativeWindow>()
    .ok_or_else(|| OpError::unavailable("there is no window: run with --window"))?;
  window.context(scope, instance, canvas)
}

/// Pumps the window's events before a frame; `Some` when the program should
/// end. Does nothing without a window.
pub fn pump(scope: &mut v8::PinScope<'_, '_>, state: &Rc<RefCell<OpState>>) -> Option<CloseReason> {
  let mut state = state.borrow_mut();
  state.try_borrow_mut::<NativeWindow>()?.pump(scope)
}

/// Presents what the frame callback drew. Does nothing without a window or
/// when nothing was drawn.
pub fn present(scope: &mut v8::PinScope<'_, '_>, state: &Rc<RefCell<OpState>>) -> Result<bool, String> {
  let state = state.borrow();
  match state.try_borrow::<NativeWindow>() {
    Some(window) => window.present(scope),
    None => Ok(false),
  }
}
