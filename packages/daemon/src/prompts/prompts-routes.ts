/** `GET /prompts`: the user's saved prompts (`<userData>/prompts/*.md`), read afresh. */
import type { RouteModule } from '../http/app.js';
import { listPrompts } from './prompt-folder.js';

export function promptsRoutes(userData: string): RouteModule {
  return (app) => {
    app.get('/prompts', async (c) => c.json(await listPrompts(userData)));
  };
}
