//! The model catalogue: the spec's eight models plus local models found in `SHIPMATE_MODELS_DIR`,
//! each with whether this deployment can embed with it now.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::embed::Embedder;
use super::local::{self, LocalModel, Manifest, PoolOptions};
use super::providers::{ProviderA, ProviderB};
use crate::KbSettings;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::kb::ModelInfo;

const CATALOGUE: &[(&str, usize, &str)] = &[
    ("provider-a-4-large", 1024, "Best quality, multilingual"),
    ("provider-a-4", 1024, "General purpose"),
    ("provider-a-4-lite", 1024, "Fast and cheap"),
    ("provider-a-code-3", 1024, "Code-optimised"),
    ("provider-b-embedding-001", 3072, "100+ languages"),
    ("@edge/base-en-v1.5", 768, "Fast English (free)"),
    ("@edge/large-en-v1.5", 1024, "Quality English (free)"),
    ("@edge/m3", 1024, "Multilingual (free)"),
];

#[derive(Clone)]
enum Backend {
    Local(Manifest, PathBuf),
    ProviderA,
    ProviderB,
    None,
}

pub struct Registry {
    settings: KbSettings,
    models: Vec<(ModelInfo, Backend)>,
    loaded: Mutex<HashMap<String, Arc<dyn Embedder>>>,
    /// The nice value of local models' threads (the worker's document batches run at 10).
    nice: i32,
}

impl Registry {
    pub fn new(settings: &KbSettings) -> Self {
        let mut locals = local::scan(&settings.models_dir);
        let mut models = Vec::new();
        for &(id, dimensions, description) in CATALOGUE {
            let backend = if id.starts_with("provider-a-") {
                if settings.provider_a_key.is_some() {
                    Backend::ProviderA
                } else {
                    Backend::None
                }
            } else if id.starts_with("provider-b-") {
                if settings.provider_b_key.is_some() {
                    Backend::ProviderB
                } else {
                    Backend::None
                }
            } else {
                match locals.iter().position(|(m, _)| m.id == id) {
                    Some(i) => {
                        let (m, p) = locals.remove(i);
                        Backend::Local(m, p)
                    }
                    None => Backend::None,
                }
            };
            let available = !matches!(backend, Backend::None);
            models.push((
                ModelInfo {
                    id: id.into(),
                    dimensions,
                    description: description.into(),
                    available,
                },
                backend,
            ));
        }
        for (m, p) in locals {
            let info = ModelInfo {
                id: m.id.clone(),
                dimensions: m.dimensions,
                description: m
                    .description
                    .clone()
                    .unwrap_or_else(|| format!("Local ONNX model, {} dimensions", m.dimensions)),
                available: true,
            };
            models.push((info, Backend::Local(m, p)));
        }
        Registry {
            settings: settings.clone(),
            models,
            loaded: Mutex::new(HashMap::new()),
            nice: 0,
        }
    }

    /// For a process that embeds documents beside a searching api on the same cores: with a
    /// positive `nice`, its local models' threads yield to the api's queries (and to Postgres)
    /// whenever both want a core.
    pub fn with_nice(mut self, nice: i32) -> Self {
        self.nice = nice;
        self
    }

    pub fn list(&self) -> Vec<ModelInfo> {
        self.models.iter().map(|(m, _)| m.clone()).collect()
    }

    /// Models served over the network rather than on this machine (or not at all here).
    pub fn remote_models(&self) -> Vec<String> {
        self.models
            .iter()
            .filter(|(_, b)| !matches!(b, Backend::Local(..)))
            .map(|(m, _)| m.id.clone())
            .collect()
    }

    pub fn info(&self, id: &str) -> Option<&ModelInfo> {
        self.models.iter().find(|(m, _)| m.id == id).map(|(m, _)| m)
    }

    /// The embedder for a model, loaded on first use and kept.
    pub fn embedder(&self, id: &str) -> AppResult<Arc<dyn Embedder>> {
        if let Some(e) = self
            .loaded
            .lock()
            .map_err(|_| anyhow::anyhow!("registry poisoned"))?
            .get(id)
        {
            return Ok(e.clone());
        }
        let (info, backend) = self
            .models
            .iter()
            .find(|(m, _)| m.id == id)
            .ok_or_else(|| AppError::not_found("model"))?;
        let s = &self.settings;
        let embedder: Arc<dyn Embedder> = match backend.clone() {
            Backend::Local(manifest, folder) => Arc::new(
                LocalModel::load(
                    manifest,
                    &folder,
                    s.ort_dylib_path.as_deref(),
                    PoolOptions {
                        nice: self.nice,
                        ..PoolOptions::for_machine(s.embed_sessions)
                    },
                )
                .map_err(|e| AppError::Unavailable(format!("model {id}: {e:#}")))?,
            ),
            Backend::ProviderA => Arc::new(ProviderA::new(
                &s.provider_a_url,
                s.provider_a_key.clone().unwrap_or_default(),
                id,
                info.dimensions,
                s.embed_provider_concurrency,
            )),
            Backend::ProviderB => Arc::new(ProviderB::new(
                &s.provider_b_url,
                s.provider_b_key.clone().unwrap_or_default(),
                id,
                info.dimensions,
                s.embed_provider_concurrency,
            )),
            Backend::None => {
                return Err(AppError::Unavailable(format!(
                    "model {id} is not available on this deployment"
                )))
            }
        };
        self.loaded
            .lock()
            .map_err(|_| anyhow::anyhow!("registry poisoned"))?
            .insert(id.to_owned(), embedder.clone());
        Ok(embedder)
    }
}
