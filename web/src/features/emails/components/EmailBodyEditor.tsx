import { Alert, Button, Divider, FileButton, Popover, Stack, Text, TextInput } from '@mantine/core';
import { endpoints, type UploadedFile } from '@renkei/contracts';
import { Link, RichTextEditor, useRichTextEditorContext } from '@mantine/tiptap';
import '@mantine/tiptap/styles.css';
import Image from '@tiptap/extension-image';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useState } from 'react';
import { ApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { fileHref } from '../../communications/attachment-files.ts';
import { uploadFile } from '../../imports/file-transfer.ts';

/**
 * 画像: an image by its public https address, or uploaded from the device (POST /uploaded_files;
 * when the draft is saved the server gives it a lasting public link, docs/decisions.md). Mail
 * clients fetch it when the mail is opened (an image inside the mail would be an attachment most
 * clients show apart). Its width fits the reader's screen, and the alternative text shows where
 * images are blocked (the default of many Japanese business mail clients).
 */
function ImageControl({ upload }: { upload?: ((file: File) => Promise<UploadedFile>) | undefined }) {
  const { editor } = useRichTextEditorContext();
  const services = useServices();
  const send = upload ?? ((file: File) => uploadFile(services, endpoints.uploadFile, file));
  const [opened, setOpened] = useState(false);
  const [src, setSrc] = useState('');
  const [alt, setAlt] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const valid = /^https?:\/\/[^\s"<>]+$/i.test(src.trim());
  const insertImage = (url: string) => {
    editor?.chain().focus().setImage({ src: url, alt: alt.trim() }).run();
    setOpened(false);
    setSrc('');
    setAlt('');
    setProblem(null);
  };
  const insert = () => insertImage(src.trim());
  async function choose(file: File | null) {
    if (!file) return;
    if (!file.type.startsWith('image/')) {
      setProblem('画像ファイル（PNG・JPEG・GIF）を選んでください');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const stored = await send(file);
      insertImage(fileHref(services.config.apiBaseUrl, stored.url));
    } catch (error) {
      setProblem(
        error instanceof ApiError && error.status === 413
          ? '画像が大きすぎます（上限 10 MB）'
          : '画像をアップロードできませんでした。もう一度お試しください',
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom" withArrow trapFocus>
      <Popover.Target>
        <RichTextEditor.Control
          onClick={() => setOpened((o) => !o)}
          aria-label="画像を挿入"
          title="画像を挿入"
          // A word, not an icon: the square of the icon controls cut it and it ran over its neighbour.
          style={{ width: 'auto', paddingInline: 6 }}
        >
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
          <Divider label="または" labelPosition="center" />
          <FileButton onChange={(file) => void choose(file)} accept="image/png,image/jpeg,image/gif">
            {(props) => (
              <Button {...props} size="xs" variant="light" loading={busy}>
                画像をアップロード
              </Button>
            )}
          </FileButton>
          <Text size="xs" c="dimmed">
            アップロードした画像は、保存時に送信先から見られる公開アドレスになります
          </Text>
          {problem && (
            <Alert color="red" p="xs">
              {problem}
            </Alert>
          )}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/**
 * The body's editor: only what survives in mail clients (the server sanitises to the same list):
 * headings, bold/italic/underline/strike, lists, quotes, rules, links and images (by URL or uploaded). Loaded with the editor
 * route only (tiptap is large).
 */
export function EmailBodyEditor({
  value,
  onChange,
  upload,
}: {
  value: string;
  onChange: (html: string) => void;
  /** Uploads one image (tests); default POST /uploaded_files. */
  upload?: (file: File) => Promise<UploadedFile>;
}) {
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
          <ImageControl upload={upload} />
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
