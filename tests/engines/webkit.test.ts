import { describeEngineFlows } from './engineFlows';

describeEngineFlows('webkit');
