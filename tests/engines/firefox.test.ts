import { describeEngineFlows } from './engineFlows';

describeEngineFlows('firefox');
