'use client';
import { useState, type FormEvent } from 'react';
import type { Approval, ApprovalQuestion } from '../../lib/protocol/agents';

/** One question: its options as radio buttons (checkboxes for multiple choice), and a text field when other answers are allowed. */
function QuestionField({
  question,
  value,
  onChange,
}: {
  question: ApprovalQuestion;
  value: string[];
  onChange: (value: string[]) => void;
}) {
  const chosen = value.filter((v) => question.options.some((o) => o.label === v));
  const other = value.find((v) => !question.options.some((o) => o.label === v)) ?? '';
  const pick = (label: string, on: boolean) => {
    const options = question.multiSelect
      ? on
        ? [...chosen, label]
        : chosen.filter((c) => c !== label)
      : on
        ? [label]
        : [];
    onChange(question.multiSelect ? [...options, ...(other ? [other] : [])] : options);
  };
  return (
    <fieldset className="question" style={{ border: 'none', padding: 0, margin: '6px 0' }}>
      <legend>
        {question.header && <strong>{question.header}: </strong>}
        {question.question}
        {question.required === false && <span className="muted"> (optional)</span>}
      </legend>
      {question.options.map((option) => (
        <label key={option.label} className="row" style={{ gap: 6 }}>
          <input
            type={question.multiSelect ? 'checkbox' : 'radio'}
            name={question.id}
            checked={chosen.includes(option.label)}
            onChange={(e) => pick(option.label, e.target.checked)}
          />
          <span>{option.label}</span>
          {option.description && <span className="muted">{option.description}</span>}
        </label>
      ))}
      {question.allowOther && (
        <input
          aria-label={question.options.length > 0 ? `Other answer: ${question.question}` : question.question}
          type={question.secret ? 'password' : 'text'}
          placeholder={question.options.length > 0 ? 'Other' : 'Answer'}
          value={other}
          onChange={(e) =>
            onChange([...(question.multiSelect ? chosen : []), ...(e.target.value ? [e.target.value] : [])])
          }
        />
      )}
    </fieldset>
  );
}

/** The questions of an approval of kind `question` as a small form (ACC-4). */
export function ApprovalQuestionForm({
  approval,
  onAnswer,
  onDecline,
}: {
  approval: Approval;
  onAnswer: (answers: Record<string, string[]>) => void;
  onDecline: () => void;
}) {
  const [answers, setAnswers] = useState<Record<string, string[]>>({});
  // An optional question (an MCP form's field outside its `required` list) may stay empty.
  const complete = approval.questions.every((q) => q.required === false || (answers[q.id] ?? []).length > 0);
  function submit(event: FormEvent) {
    event.preventDefault();
    if (complete) onAnswer(answers);
  }
  return (
    <form onSubmit={submit}>
      {approval.questions.map((question) => (
        <QuestionField
          key={question.id}
          question={question}
          value={answers[question.id] ?? []}
          onChange={(value) => setAnswers((current) => ({ ...current, [question.id]: value }))}
        />
      ))}
      <div className="row" style={{ marginTop: 6 }}>
        <button className="primary" type="submit" disabled={!complete}>
          Answer
        </button>
        <button type="button" onClick={onDecline}>
          Decline
        </button>
      </div>
    </form>
  );
}
