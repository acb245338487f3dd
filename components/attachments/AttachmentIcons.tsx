import { ArrowUp, Camera, File, Paperclip, X } from 'lucide-react';

// The attachment controls' icons come from Lucide, like the rest of the app's (UX-4): an emoji or
// a text glyph depends on the device's fonts, an inline SVG does not.
const common = { size: 22, strokeWidth: 2, 'aria-hidden': true, focusable: false } as const;

export const PaperclipIcon = () => <Paperclip {...common} />;
export const CameraIcon = () => <Camera {...common} />;
export const FileIcon = () => <File {...common} />;
export const CloseIcon = () => <X {...common} />;
export const SendIcon = () => <ArrowUp {...common} />;
