import { Button, Popover, Stack, TextInput } from '@mantine/core';
import { Link, RichTextEditor, useRichTextEditorContext } from '@mantine/tiptap';
import '@mantine/tiptap/styles.css';
import Image from '@tiptap/extension-image';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useState } from 'react';

/**
 * 画像: an image by its public https address (mail clients fetch it when the mail is opened; an
 * image inside the mail would be an attachment most clients show apart). Its width fits the
 * reader's screen, and the alternative text shows where images are blocked (the default of many
 * Japanese business mail clients).
 */
function ImageControl() {
  const { editor } = useRichTextEditorContext();
  const [opened, setOpened] = useState(false);
  const [src, setSrc] = useState('');
  const [alt, setAlt] = useState('');
  const valid = /^https?:\/\/[^\s"<>]+$/i.test(src.trim());
  const insert = () => {
    editor?.chain().focus().setImage({ src: src.trim(), alt: alt.trim() }).run();
    setOpened(false);
    setSrc('');
    setAlt('');
  };
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom" withArrow trapFocus>
      <Popover.Target>
        <RichTextEditor.Control onClick={() => setOpened((o) => !o)} aria-label="画像を挿入" title="画像を挿入">
          画像
        </RichTextEditor.Control>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" w={280}>
          <TextInput
            label="画像のURL"
            placeholder="https://"
            value={src}
            onChange={(e) => setSrc(e.currentTarget.value)}
            error={src && !valid ? 'http(s):// で始まるURLを入力してください' : undefined}
          />
          <TextInput
            label="代替テキスト"
            description="画像が表示されないときに代わりに表示されます"
            value={alt}
            onChange={(e) => setAlt(e.currentTarget.value)}
          />
          <Button size="xs" onClick={insert} disabled={!valid}>
            挿入
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * The body's editor: only what survives in mail clients (the server sanitises to the same list):
 * headings, bold/italic/underline/strike, lists, quotes, rules, links and images by URL. Loaded with the editor
 * route only (tiptap is large).
 */
export function EmailBodyEditor({ value, onChange }: { value: string; onChange: (html: string) => void }) {
  const editor = useEditor({
    extensions: [
      StarterKit.configure({ link: false, code: false, codeBlock: false }),
      Link,
      Image.configure({
        allowBase64: false,
        HTMLAttributes: { style: 'max-width:100%;height:auto;border:0' },
      }),
    ],
    content: value,
    immediatelyRender: true,
    onUpdate: ({ editor: e }) => onChange(e.getHTML()),
  });
  return (
    <RichTextEditor editor={editor} aria-label="本文">
      <RichTextEditor.Toolbar>
        <RichTextEditor.ControlsGroup>
          <RichTextEditor.Bold />
          <RichTextEditor.Italic />
          <RichTextEditor.Underline />
          <RichTextEditor.Strikethrough />
        </RichTextEditor.ControlsGroup>
        <RichTextEditor.ControlsGroup>
          <RichTextEditor.H2 />
          <RichTextEditor.H3 />
          <RichTextEditor.Blockquote />
          <RichTextEditor.Hr />
          <RichTextEditor.BulletList />
          <RichTextEditor.OrderedList />
        </RichTextEditor.ControlsGroup>
        <RichTextEditor.ControlsGroup>
          <RichTextEditor.Link />
          <RichTextEditor.Unlink />
          <ImageControl />
        </RichTextEditor.ControlsGroup>
        <RichTextEditor.ControlsGroup>
          <RichTextEditor.Undo />
          <RichTextEditor.Redo />
        </RichTextEditor.ControlsGroup>
      </RichTextEditor.Toolbar>
      <RichTextEditor.Content data-testid="email-body-editor" />
    </RichTextEditor>
  );
}
