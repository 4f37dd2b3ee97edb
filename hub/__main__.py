from hub.run.cli import main

raise SystemExit(main())
