rchar: 25370274726
wchar: 13658
syscr: 193779
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
