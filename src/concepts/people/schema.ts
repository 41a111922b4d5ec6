// Bodies and answers of sign-in, the signed-in person's own routes and /api/admin/user-admin, in
// Unleash's shapes (8.2), with Fanion's additions named as such.
const str = (maxLength: number) => ({ type: 'string', maxLength });
const nullableStr = { type: ['string', 'null'] };
const rootRole = { oneOf: [{ type: 'integer', enum: [1, 2, 3] }, { type: 'string', minLength: 1, maxLength: 20 }] };
const binding = {
  type: 'object', required: ['project', 'role'], additionalProperties: false,
  properties: { project: str(100), role: { type: 'string', enum: ['Owner', 'Member', 'Viewer', 'owner', 'member', 'viewer'] } },
};
const personFields = {
  email: { type: ['string', 'null'], maxLength: 254 },
  name: { type: ['string', 'null'], maxLength: 100 },
  username: { type: ['string', 'null'], maxLength: 100 },
  rootRole,
  // Fanion's: roles in projects, the environments the person may change (null: all), deactivation.
  projects: { type: 'array', maxItems: 500, items: binding },
  environments: { type: ['array', 'null'], maxItems: 50, items: str(100) },
  active: { type: 'boolean' },
};

export const peopleSchemas = {
  loginSchema: {
    type: 'object', required: ['username', 'password'],
    properties: { username: { type: 'string', minLength: 1, maxLength: 254 }, password: { type: 'string', maxLength: 1024 } },
  },
  passwordSchema: {
    type: 'object', required: ['password'],
    properties: { password: { type: 'string', maxLength: 1024 }, oldPassword: { type: 'string', maxLength: 1024 }, confirmPassword: { type: 'string', maxLength: 1024 } },
  },
  changePasswordSchema: {
    type: 'object', required: ['token', 'password'],
    properties: { token: { type: 'string', minLength: 1, maxLength: 200 }, password: { type: 'string', maxLength: 1024 } },
  },
  validatePasswordSchema: { type: 'object', required: ['password'], properties: { password: { type: 'string', maxLength: 1024 } } },
  createUserSchema: {
    type: 'object', required: ['rootRole'],
    properties: { ...personFields, password: { type: 'string', maxLength: 1024 }, sendEmail: { type: 'boolean' } },
  },
  updateUserSchema: { type: 'object', properties: personFields },
  idSchema: { type: 'object', required: ['id'], properties: { id: { type: ['string', 'integer'] } } },
  createPatSchema: {
    type: 'object', required: ['description', 'expiresAt'],
    properties: { description: { type: 'string', minLength: 1, maxLength: 200 }, expiresAt: { type: 'string', format: 'date-time' } },
  },
};

const userProperties = {
  id: { type: 'integer' }, name: nullableStr, email: nullableStr, username: nullableStr, imageUrl: { type: 'string' }, accountType: { type: 'string' },
  rootRole: { type: 'integer' }, seenAt: nullableStr, createdAt: { type: 'string' }, loginAttempts: { type: 'integer' },
  projects: { type: 'array', items: { type: 'object', required: ['project', 'role'], properties: { project: { type: 'string' }, role: { type: 'string' } } } },
  environments: { type: ['array', 'null'], items: { type: 'string' } },
  active: { type: 'boolean' }, sso: { type: 'boolean' }, inviteLink: { type: 'string' }, emailSent: { type: 'boolean' },
  activeSessions: { type: 'integer' }, passwordSet: { type: 'boolean' },
};
const user = { type: 'object', required: ['id', 'rootRole', 'accountType'], properties: userProperties, not: { anyOf: [{ required: ['passwordHash'] }, { required: ['password'] }] } };
const role = { type: 'object', required: ['id', 'name', 'type'], properties: { id: { type: 'integer' }, name: { type: 'string' }, type: { type: 'string' }, description: { type: 'string' } } };
const permission = { type: 'object', required: ['permission'], properties: { permission: { type: 'string' }, project: { type: 'string' }, environment: { type: 'string' } } };
const pat = {
  type: 'object', required: ['id', 'description', 'expiresAt', 'createdAt'],
  properties: { id: { type: 'integer' }, description: { type: 'string' }, expiresAt: { type: 'string' }, createdAt: { type: 'string' }, seenAt: nullableStr, userId: { type: 'integer' } },
};

export const peopleReplies = {
  userSchema: user,
  usersSchema: { type: 'object', required: ['users', 'rootRoles'], properties: { users: { type: 'array', items: user }, rootRoles: { type: 'array', items: role } } },
  meSchema: {
    type: 'object', required: ['user', 'permissions', 'feedback', 'splash'],
    properties: {
      user: { type: 'object', required: ['id', 'accountType'], properties: { ...userProperties, id: { type: 'integer' } } },
      permissions: { type: 'array', items: permission }, feedback: { type: 'array' }, splash: { type: 'object' },
      // Fanion's: how the caller signed in, and the roles a console may offer.
      authType: { type: 'string' }, rootRoles: { type: 'array', items: role }, projectRoles: { type: 'array' },
    },
  },
  patSchema: { ...pat, properties: { ...pat.properties, secret: { type: 'string' } } },
  patsSchema: { type: 'object', required: ['pats'], properties: { pats: { type: 'array', items: { ...pat, not: { required: ['secret'] } } } } },
  resetPasswordSchema: { type: 'object', required: ['resetPasswordUrl'], properties: { resetPasswordUrl: { type: 'string' } } },
  tokenUserSchema: {
    type: 'object', required: ['id', 'email', 'token', 'createdBy', 'role'],
    properties: { id: { type: 'integer' }, name: nullableStr, email: nullableStr, username: nullableStr, token: { type: 'string' }, createdBy: { type: 'string' }, role },
  },
  signInOptionsSchema: {
    type: 'object', required: ['password', 'oidc'],
    properties: { password: { type: 'boolean' }, oidc: { type: ['object', 'null'], properties: { name: { type: 'string' }, url: { type: 'string' } } } },
  },
};
