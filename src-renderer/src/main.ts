import { createApp } from 'vue'
import { createPinia } from 'pinia'
import App from './App.vue'
import { vErrorDetail } from './client'

createApp(App).use(createPinia()).directive('error-detail', vErrorDetail).mount('#app')
