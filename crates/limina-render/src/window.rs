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
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, NamedKey, PhysicalKey};
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

/// Input for JS, in the DOM's terms: `code` is the physical key ("KeyW",
/// "ArrowLeft"), `key` what it types or names ("w", "Enter"), buttons are
/// numbered 0 left, 1 middle, 2 right, 3 back, 4 forward, positions are
/// physical pixels from the window's top left.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum InputEvent {
  KeyDown { code: String, key: String, repeat: bool },
  KeyUp { code: String, key: String },
  PointerMove { x: f64, y: f64 },
  PointerDown { button: u16, x: f64, y: f64 },
  PointerUp { button: u16, x: f64, y: f64 },
  /// Scroll amounts in lines (`pixels: false`) or pixels (`pixels: true`).
  Wheel { dx: f64, dy: f64, pixels: bool },
  Focus { focused: bool },
}

/// Events kept for JS between drains; past this the oldest go (a module
/// that never reads input must not grow memory).
const MAX_QUEUED_EVENTS: usize = 1024;

struct WindowApp {
  attributes: WindowAttributes,
  window: Option<Window>,
  error: Option<String>,
  close: Option<CloseReason>,
  events: std::collections::VecDeque<InputEvent>,
  pointer: (f64, f64),
}

impl WindowApp {
  fn push(&mut self, event: InputEvent) {
    // Consecutive moves collapse into the latest position.
    if let (InputEvent::PointerMove { .. }, Some(InputEvent::PointerMove { .. })) = (&event, self.events.back()) {
      self.events.pop_back();
    }
    if self.events.len() == MAX_QUEUED_EVENTS {
      self.events.pop_front();
    }
    self.events.push_back(event);
  }
}

fn key_names(physical: &PhysicalKey, logical: &Key) -> (String, String) {
  let code = match physical {
    PhysicalKey::Code(code) => format!("{code:?}"),
    PhysicalKey::Unidentified(_) => "Unidentified".to_string(),
  };
  let key = match logical {
    Key::Character(c) => c.to_string(),
    Key::Named(named) => format!("{named:?}"),
    _ => "Unidentified".to_string(),
  };
  (code, key)
}

fn button_number(button: MouseButton) -> u16 {
  match button {
    MouseButton::Left => 0,
    MouseButton::Middle => 1,
    MouseButton::Right => 2,
    MouseButton::Back => 3,
    MouseButton::Forward => 4,
    MouseButton::Other(n) => n,
  }
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
      WindowEvent::KeyboardInput { event, .. } => {
        let (code, key) = key_names(&event.physical_key, &event.logical_key);
        self.push(match event.state {
          ElementState::Pressed => InputEvent::KeyDown { code, key, repeat: event.repeat },
          ElementState::Released => InputEvent::KeyUp { code, key },
        });
        return;
      }
      WindowEvent::CursorMoved { position, .. } => {
        self.pointer = (position.x, position.y);
        self.push(InputEvent::PointerMove { x: position.x, y: position.y });
        return;
      }
      WindowEvent::MouseInput { state, button, .. } => {
        let (button, (x, y)) = (button_number(button), self.pointer);
        self.push(match state {
          ElementState::Pressed => InputEvent::PointerDown { button, x, y },
          ElementState::Released => InputEvent::PointerUp { button, x, y },
        });
        return;
      }
      WindowEvent::MouseWheel { delta, .. } => {
        self.push(match delta {
          MouseScrollDelta::LineDelta(dx, dy) => InputEvent::Wheel { dx: dx as f64, dy: dy as f64, pixels: false },
          MouseScrollDelta::PixelDelta(p) => InputEvent::Wheel { dx: p.x, dy: p.y, pixels: true },
        });
        return;
      }
      WindowEvent::Focused(focused) => {
        self.push(InputEvent::Focus { focused });
        return;
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
    let mut app = WindowApp { attributes, window: None, error: None, close: None, events: Default::default(), pointer: (0.0, 0.0) };
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
    self.fit_surface(scope, false);
    None
  }

  /// Sizes the surface to the window; `force` reconfigures it even at the
  /// same size. True when the surface was reconfigured.
  fn fit_surface(&self, scope: &mut v8::PinScope<'_, '_>, force: bool) -> bool {
    let (width, height) = self.size();
    let Some(surface) = &self.surface else { return false };
    // A minimised window has no area: keep the last surface until it returns.
    if width == 0 || height == 0 {
      return false;
    }
    {
      let mut data = surface.data.borrow_mut();
      if !force && (data.width, data.height) == (width, height) {
        return false;
      }
      data.width = width;
      data.height = height;
    }
    match unwrap_context(scope, &surface.context) {
      Some(context) => {
        context.resize(scope);
        true
      }
      None => false,
    }
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

/// The window's input since the last call, oldest first; empty without a window.
#[op2]
#[serde]
pub fn op_render_window_events(state: &mut OpState) -> Vec<InputEvent> {
  match state.try_borrow_mut::<NativeWindow>() {
    Some(window) => window.app.events.drain(..).collect(),
    None => Vec::new(),
  }
}

/// Reconfigures the surface to the window's current size, after an acquire
/// found it out of date (a resize raced the frame). False without a surface.
#[op2(fast)]
pub fn op_render_window_reconfigure(state: &mut OpState, scope: &mut v8::PinScope<'_, '_>) -> bool {
  state.try_borrow::<NativeWindow>().is_some_and(|window| window.fit_surface(scope, true))
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
